package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The small concurrent scenarios of issue 35 on real threads, beside their controlled schedules in {@code
 * FrayScenariosTest} (only with -Pfray: Fray's Maven plugin links an instrumented JDK 25 and runs them under its
 * agents; Lincheck's model checking hangs on these paths: see docs/reliability.md). Each round is started behind one
 * latch, each thread delayed by a seeded random number of spins and yields before its step, so that the seed moves the
 * race point round by round. Each thread marks the order in which its steps began and ended; the distinct orders seen
 * are counted as the interleavings explored (a lower bound of the schedules run: two rounds with one order of marks
 * may still differ inside the library). Rounds per scenario: {@code -Dlocktable.races.rounds} (default 300; CI's
 * Spring Boot 4.1 lane runs 10,000, about 40 s for the five on a quiet machine), seed {@code
 * -Dlocktable.races.seed}.
 */
class RaceScenariosStressTest {

    private static final AtomicLong TABLES = new AtomicLong();
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final int ROUNDS = Integer.getInteger("locktable.races.rounds", 300);
    private static final long SEED = Long.getLong("locktable.races.seed", 35);

    /** One round's threads: each waits for the start, spins its seeded delay, marks, runs its step, marks. */
    private static final class Round {
        private final Random random;
        private final CountDownLatch start = new CountDownLatch(1);
        private final ConcurrentLinkedQueue<String> marks = new ConcurrentLinkedQueue<>();
        private final List<Thread> threads = new ArrayList<>();
        private final List<Throwable> failures = new ArrayList<>();

        Round(Random random) {
            this.random = random;
        }

        void thread(String name, ThrowingRunnable step) {
            int spins = random.nextInt(4) == 0 ? 0 : random.nextInt(20_000);
            boolean yields = random.nextBoolean();
            threads.add(new Thread(
                    () -> {
                        try {
                            start.await();
                            for (int i = 0; i < spins; i++) {
                                if (yields && i % 1_000 == 0) {
                                    Thread.yield();
                                }
                                Thread.onSpinWait();
                            }
                            marks.add(name + "<");
                            step.run();
                            marks.add(name + ">");
                        } catch (Throwable e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    },
                    "race-" + name));
        }

        /** Runs the threads, and returns the order of their marks. */
        String run() throws InterruptedException {
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread thread : threads) {
                thread.join(10_000);
                if (thread.isAlive()) {
                    throw new AssertionError("the race hung: " + thread.getName() + " "
                            + java.util.Arrays.toString(thread.getStackTrace()));
                }
            }
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError("a step threw", failures.get(0));
                failures.stream().skip(1).forEach(error::addSuppressed);
                throw error;
            }
            return String.join(" ", marks);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @FunctionalInterface
    private interface Scenario {
        /** Sets one round up, adds its threads, runs it, checks what must hold after; returns the order of marks. */
        String round(Round round) throws Exception;
    }

    private static void explore(String name, Scenario scenario) throws Exception {
        Random random = new Random(SEED ^ name.hashCode());
        Set<String> orders = new HashSet<>();
        long started = System.nanoTime();
        for (int i = 0; i < ROUNDS; i++) {
            orders.add(scenario.round(new Round(random)));
        }
        System.out.println("[races] " + name + ": " + ROUNDS + " rounds, " + orders.size() + " orders of steps, "
                + (System.nanoTime() - started) / 1_000_000 + " ms, seed " + SEED);
        assertThat(orders).as("orders of steps explored").isNotEmpty();
    }

    private static LockTable table(ManualLockClock clock) {
        return LockTable.inMemory("races-" + TABLES.incrementAndGet())
                .clock(clock)
                .build();
    }

    /** A caller's release racing the renewal a clock advance runs on another thread: nothing stays held. */
    @Test
    void releaseRacingARenewal() throws Exception {
        explore("release racing a renewal", round -> {
            ManualLockClock clock = new ManualLockClock();
            LockTable table = table(clock);
            Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
            round.thread("release", lease::release);
            round.thread("renewal", () -> clock.advance(LEASE.dividedBy(3)));
            String order = round.run();
            assertThat(lease.isHeld()).as("held after release").isFalse();
            assertThat(table.heldLeases()).isEmpty();
            assertThat(table.read("race").orElseThrow().owner()).isEmpty();
            table.close();
            return order;
        });
    }

    /**
     * A renewal answered as the lease expires: the advance runs the last renewals and the expiry watch while a caller
     * writes under the held check. A held check that passes finds the item owned by this acquisition.
     */
    @Test
    void aHeldCheckRacingTheLeasesEnd() throws Exception {
        explore("renewal answered as the lease expires", round -> {
            ManualLockClock clock = new ManualLockClock();
            LockTable table = table(clock);
            Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
            clock.advance(LEASE.minusMillis(LEASE.toMillis() / 3 + 1)); // just before the renewal falls due
            boolean[] passed = new boolean[1];
            round.thread("advance", () -> clock.jump(LEASE.multipliedBy(2))); // the renewal never runs: it expires
            round.thread("write", () -> {
                try {
                    lease.transactWrite();
                    passed[0] = true;
                } catch (LeaseLostException ended) {
                    // the lease ended first: refused, as it must be
                }
            });
            round.thread("check", lease::isHeld);
            String order = round.run();
            clock.advance(Duration.ZERO); // the timer runs what fell due
            assertThat(lease.isHeld()).as("held two leases on without renewal").isFalse();
            boolean passedAfter;
            try {
                lease.transactWrite();
                passedAfter = true;
            } catch (LeaseLostException expected) {
                passedAfter = false;
            }
            assertThat(passedAfter).as("a held check of an ended lease passed").isFalse();
            table.close();
            return order + (passed[0] ? " passed" : " refused");
        });
    }

    /** close() racing an acquire on another thread: nothing held, the item without an owner of this table. */
    @Test
    void closeRacingAnAcquire() throws Exception {
        explore("close racing an acquire", round -> {
            ManualLockClock clock = new ManualLockClock();
            LockTable table = table(clock);
            round.thread("close", table::close);
            round.thread("acquire", () -> {
                try {
                    table.tryAcquire("race", LEASE);
                } catch (IllegalStateException closed) {
                    // the table closed first, or while it acquired: the lock was given back
                }
            });
            String order = round.run();
            assertThat(table.heldLeases()).isEmpty();
            // a reader of the same table: table(clock) would name a new, empty one
            LockTable reader =
                    LockTable.inMemory(table.tableName()).clock(clock).build();
            assertThat(reader.read("race").flatMap(LockRecord::owner))
                    .as("owner left after close")
                    .isEmpty();
            reader.close();
            return order;
        });
    }

    /**
     * A waiter woken as the table closes: another table's holder releases on one thread while the waiter's table
     * closes on another; the waiter's future completes either way, and nothing is held.
     */
    @Test
    void aWaiterWokenAsTheTableCloses() throws Exception {
        explore("a waiter woken as the table closes", round -> {
            ManualLockClock clock = new ManualLockClock();
            String name = "races-shared-" + TABLES.incrementAndGet();
            LockTable holderTable = LockTable.inMemory(name).clock(clock).build();
            LockTable waiterTable = LockTable.inMemory(name).clock(clock).build();
            Lease held = holderTable.tryAcquire("race", LEASE).orElseThrow();
            CompletableFuture<Lease> waiting = waiterTable.acquireAsync("race", LEASE, LEASE.multipliedBy(10));
            round.thread("release", held::release);
            round.thread("close", waiterTable::close);
            String order = round.run();
            clock.advance(LEASE); // a wake queued on the timer runs
            try {
                waiting.get(10, TimeUnit.SECONDS).release();
            } catch (java.util.concurrent.ExecutionException closed) {
                // ended by the close: as it must be
            }
            assertThat(waiting).as("the waiter's future after close()").isDone();
            assertThat(waiterTable.heldLeases()).isEmpty();
            holderTable.close();
            return order + (waiting.isCompletedExceptionally() ? " closed" : " granted");
        });
    }

    /** A term listener that closes its own election: the close returns, the election is over, nothing is held. */
    @Test
    void aListenerClosingItsOwnLeadership() throws Exception {
        explore("a listener closing its own leadership", round -> {
            ManualLockClock clock = new ManualLockClock();
            LockTable table = table(clock);
            CompletableFuture<Leadership> self = new CompletableFuture<>();
            CountDownLatch termStarted = new CountDownLatch(1);
            Leadership leadership = table.lead("race", LEASE, term -> {
                termStarted.countDown();
                self.join().close();
            });
            self.complete(leadership);
            round.thread("advance", () -> clock.advance(Duration.ofMillis(1)));
            round.thread("stop", () -> {
                if (termStarted.getCount() == 0) {
                    leadership.close();
                }
            });
            String order = round.run();
            clock.advance(LEASE);
            leadership.close();
            assertThat(leadership.isLeader()).isFalse();
            assertThat(table.heldLeases()).isEmpty();
            table.close();
            return order;
        });
    }
}
