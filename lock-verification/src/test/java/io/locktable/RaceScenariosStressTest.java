package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The race scenarios of issue 35 ({@link RaceScenarios}) on real threads, beside their controlled schedules in {@code
 * FrayScenariosTest} (only with -Pfray: Fray's Maven plugin links an instrumented JDK 25 and runs them under its
 * agents; Lincheck's model checking hangs on these paths: see docs/reliability.md). Each round is started behind one
 * latch, each thread delayed by a seeded random number of spins and yields before its step, so that the seed moves the
 * race point round by round. Each round ends with the order in which its steps began and ended and its outcome; the
 * distinct ends seen are counted as the interleavings explored (a lower bound of the schedules run: two rounds with one
 * end may still differ inside the library), and a scenario that saw one end only fails: its steps never raced. Rounds per scenario: {@code -Dlocktable.races.rounds} (default 300; CI's Java 25 lane runs
 * 1,000), seed {@code -Dlocktable.races.seed}.
 */
class RaceScenariosStressTest {

    private static final int ROUNDS = Integer.getInteger("locktable.races.rounds", 300);
    private static final long SEED = Long.getLong("locktable.races.seed", 35);

    /** Races a round's steps on threads that each wait for one start, then spin a seeded delay, mark, run, mark. */
    private static final class SeededDelays implements RaceScenarios.Driver {
        private final Random random;

        SeededDelays(Random random) {
            this.random = random;
        }

        @Override
        public String race(List<Map.Entry<String, RaceScenarios.Step>> steps) throws InterruptedException {
            CountDownLatch start = new CountDownLatch(1);
            return RaceScenarios.onThreads(
                    steps,
                    name -> {
                        int spins = random.nextInt(4) == 0 ? 0 : random.nextInt(20_000);
                        boolean yields = random.nextBoolean();
                        return () -> {
                            start.await();
                            for (int i = 0; i < spins; i++) {
                                if (yields && i % 1_000 == 0) {
                                    Thread.yield();
                                }
                                Thread.onSpinWait();
                            }
                        };
                    },
                    start::countDown,
                    Duration.ofSeconds(10));
        }

        @Override
        public <T> T await(CompletableFuture<T> future) throws Exception {
            try {
                return future.get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("a future that must be complete was not, 10 s on", e);
            }
        }
    }

    private static void explore(String name, RaceScenarios.Scenario scenario) throws Exception {
        SeededDelays driver = new SeededDelays(new Random(SEED ^ name.hashCode()));
        Set<String> ends = new HashSet<>();
        long started = System.nanoTime();
        for (int i = 0; i < ROUNDS; i++) {
            ends.add(scenario.round(driver));
        }
        System.out.println("[races] " + name + ": " + ROUNDS + " rounds, " + ends.size() + " distinct ends, "
                + (System.nanoTime() - started) / 1_000_000 + " ms, seed " + SEED);
        assertThat(ends).as("distinct ends").hasSizeGreaterThan(1);
    }

    @Test
    void closeRacingAnAcquire() throws Exception {
        explore("close racing an acquire", RaceScenarios::closeRacingAnAcquire);
    }

    @Test
    void releaseRacingARenewal() throws Exception {
        explore("release racing a renewal", RaceScenarios::releaseRacingARenewal);
    }

    @Test
    void aHeldCheckRacingTheLeasesEnd() throws Exception {
        explore("renewal answered as the lease expires", RaceScenarios::aHeldCheckRacingTheLeasesEnd);
    }

    @Test
    void aWaiterWokenAsTheTableCloses() throws Exception {
        explore("a waiter woken as the table closes", RaceScenarios::aWaiterWokenAsTheTableCloses);
    }

    @Test
    void aWaiterHandedTheLockAsItsTableCloses() throws Exception {
        explore("a waiter handed the lock as its table closes", RaceScenarios::aWaiterHandedTheLockAsItsTableCloses);
    }

    @Test
    void aListenerClosingItsOwnLeadership() throws Exception {
        explore("a listener closing its own leadership", RaceScenarios::aListenerClosingItsOwnLeadership);
    }

    @Test
    void closeRacingATermsStart() throws Exception {
        explore("close racing a term's start", RaceScenarios::closeRacingATermsStart);
    }
}
