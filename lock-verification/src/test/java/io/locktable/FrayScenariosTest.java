package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.pastalab.fray.junit.junit5.FrayTestExtension;
import org.pastalab.fray.junit.junit5.annotations.ConcurrencyTest;

/**
 * Controlled thread schedules with Fray: the race scenarios of issue 35 ({@link RaceScenarios}; {@link
 * RaceScenariosStressTest} runs them on real threads), on in-memory tables with a {@link ManualLockClock}, so that a
 * table starts no thread of its own and every thread of a scenario is one of its steps. Fray runs each scenario {@value #ITERATIONS} times, each under a
 * schedule its default scheduler (POS, partial order sampling) draws; it switches threads at monitors and locks,
 * atomics and volatile fields, parks, and thread start and join (plain fields are not interleaved). Each iteration
 * asserts what must hold after the race; the class counts the distinct ends seen per scenario (the order in which the
 * steps began and ended, and the outcome), prints them, and fails a scenario that saw one only. A failure prints the
 * iteration; target/fray/fray-report holds Fray's log and the recording that replays it.
 *
 * <p>Runs only with {@code -Pfray} (docs/reliability.md, "Controlled thread schedules"): Fray's agents on an
 * instrumented JDK 25. The default build neither compiles nor runs it; {@code .ci/run}'s Java 25 lane does.
 */
@ExtendWith(FrayTestExtension.class)
class FrayScenariosTest {

    private static final int ITERATIONS = 10_000;
    /** Per scenario, the distinct ends seen: the order in which the steps began and ended, and the outcome. */
    private static final Map<String, Set<String>> ENDS = new TreeMap<>();
    /** Per scenario, the iterations that passed. */
    private static final Map<String, Integer> PASSED = new TreeMap<>();

    /** Counts an iteration that passed, and its end; called on the test's thread once the steps have ended. */
    private static void passed(String scenario, String end) {
        synchronized (ENDS) {
            ENDS.computeIfAbsent(scenario, s -> new java.util.TreeSet<>()).add(end);
            PASSED.merge(scenario, 1, Integer::sum);
        }
    }

    /**
     * Prints what each scenario explored, and checks that a scenario run to the end saw more than one end: one end
     * only would mean that the steps never raced (Fray not in control, or a scenario that orders its steps).
     */
    @AfterAll
    static void explored() {
        synchronized (ENDS) {
            ENDS.forEach((scenario, ends) -> {
                System.out.println("[fray] " + scenario + ": " + PASSED.get(scenario) + " iterations passed, "
                        + ends.size() + " distinct ends: " + ends);
                if (PASSED.get(scenario) == ITERATIONS) {
                    assertThat(ends).as(scenario + ": distinct ends").hasSizeGreaterThan(1);
                }
            });
        }
    }

    /** Starts the steps on plain threads and joins them: Fray chooses every switch between them. */
    private static final RaceScenarios.Driver THREADS = new RaceScenarios.Driver() {
        @Override
        public String race(List<Map.Entry<String, RaceScenarios.Step>> steps) throws InterruptedException {
            return RaceScenarios.onThreads(steps, name -> () -> {}, () -> {}, null);
        }

        /** An untimed wait: if nothing completes the future, Fray reports the deadlock with its schedule. */
        @Override
        public <T> T await(CompletableFuture<T> future) throws Exception {
            return future.get();
        }
    };

    @ConcurrencyTest(iterations = ITERATIONS)
    void closeRacingAnAcquire() throws Exception {
        passed("close racing an acquire", RaceScenarios.closeRacingAnAcquire(THREADS));
    }

    @ConcurrencyTest(iterations = ITERATIONS)
    void releaseRacingARenewal() throws Exception {
        passed("release racing a renewal", RaceScenarios.releaseRacingARenewal(THREADS));
    }

    @ConcurrencyTest(iterations = ITERATIONS)
    void aHeldCheckRacingTheLeasesEnd() throws Exception {
        passed("renewal answered as the lease expires", RaceScenarios.aHeldCheckRacingTheLeasesEnd(THREADS));
    }

    @ConcurrencyTest(iterations = ITERATIONS)
    void aWaiterWokenAsTheTableCloses() throws Exception {
        passed("a waiter woken as the table closes", RaceScenarios.aWaiterWokenAsTheTableCloses(THREADS));
    }

    @ConcurrencyTest(iterations = ITERATIONS)
    void aWaiterHandedTheLockAsItsTableCloses() throws Exception {
        passed(
                "a waiter handed the lock as its table closes",
                RaceScenarios.aWaiterHandedTheLockAsItsTableCloses(THREADS));
    }

    @ConcurrencyTest(iterations = ITERATIONS)
    void aListenerClosingItsOwnLeadership() throws Exception {
        passed("a listener closing its own leadership", RaceScenarios.aListenerClosingItsOwnLeadership(THREADS));
    }

    @ConcurrencyTest(iterations = ITERATIONS)
    void closeRacingATermsStart() throws Exception {
        passed("close racing a term's start", RaceScenarios.closeRacingATermsStart(THREADS));
    }
}
