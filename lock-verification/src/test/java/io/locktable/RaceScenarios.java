package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The race scenarios of issue 35, each written once for two drivers: {@link RaceScenariosStressTest} races their steps
 * on real threads behind seeded delays, {@code FrayScenariosTest} under Fray's controlled schedules. Each scenario sets
 * one round up on an in-memory table with a {@link ManualLockClock} (the table starts no thread of its own, so every
 * thread is one of the steps), races its steps, checks what must hold after, and returns the round's end: the order
 * in which the steps began ({@code name<}) and ended ({@code name>}), and the outcome.
 */
final class RaceScenarios {

    /** One step of a race, run on a thread of its own. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    /** How a driver runs a round's steps and waits for a future. */
    interface Driver {
        /** Runs the steps at once, each on a thread of its own; throws what a step threw; returns the marks. */
        String race(List<Map.Entry<String, Step>> steps) throws Exception;

        /** Waits for a future that must complete without the clock moving. */
        <T> T await(CompletableFuture<T> future) throws Exception;
    }

    /** A scenario: one round under a driver, returning its end. */
    @FunctionalInterface
    interface Scenario {
        String round(Driver driver) throws Exception;
    }

    /**
     * Runs each step on a thread of its own, after what {@code prelude} gives for it there, marking when the step
     * begins ({@code name<}) and ends ({@code name>}); runs {@code started} once every thread has started; joins them
     * (a thread still alive {@code hangAfter} on fails the race, when given); throws what a step threw; returns the
     * marks in their order.
     */
    static String onThreads(
            List<Map.Entry<String, Step>> steps,
            Function<String, Step> prelude,
            Runnable started,
            @Nullable Duration hangAfter)
            throws InterruptedException {
        ConcurrentLinkedQueue<String> marks = new ConcurrentLinkedQueue<>();
        List<Throwable> failures = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (Map.Entry<String, Step> step : steps) {
            String name = step.getKey();
            Step before = prelude.apply(name);
            threads.add(new Thread(
                    () -> {
                        try {
                            before.run();
                            marks.add(name + "<");
                            step.getValue().run();
                            marks.add(name + ">");
                        } catch (Throwable e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    },
                    "race-" + name));
        }
        threads.forEach(Thread::start);
        started.run();
        for (Thread thread : threads) {
            if (hangAfter == null) {
                thread.join();
            } else {
                thread.join(hangAfter.toMillis());
                if (thread.isAlive()) {
                    throw new AssertionError(
                            "the race hung: " + thread.getName() + " " + Arrays.toString(thread.getStackTrace()));
                }
            }
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError("a step threw", failures.get(0));
                failures.stream().skip(1).forEach(error::addSuppressed);
                throw error;
            }
        }
        return String.join(" ", marks);
    }

    private static final AtomicLong TABLES = new AtomicLong();
    private static final Duration LEASE = Duration.ofSeconds(3);

    private RaceScenarios() {}

    private static Map.Entry<String, Step> step(String name, Step step) {
        return Map.entry(name, step);
    }

    private static LockTable table(ManualLockClock clock, String name) {
        // futures completed on the common pool as asked now, not on the default completion executor: lock-core keeps
        // the JDK's default (the common pool) in a static field, and Fray gives each iteration a common pool of its own
        // and shuts it down at the iteration's end, so a pool kept from an earlier iteration refuses the completion
        return LockTable.inMemory(name)
                .clock(clock)
                .completionExecutor(ForkJoinPool.commonPool())
                .build();
    }

    private static String freshName() {
        return "races-" + TABLES.incrementAndGet();
    }

    /** The raced lock's item, read by a reader of the same table: no owner may be left after close(). */
    private static void assertNoOwnerLeft(LockTable table, ManualLockClock clock) {
        LockTable reader = table(clock, table.tableName());
        assertThat(reader.read("race").flatMap(LockRecord::owner))
                .as("owner left after close")
                .isEmpty();
        reader.close();
    }

    /**
     * close() racing an acquire on another thread: nothing held, the item without an owner. Outcome: whether the
     * acquire got the lock, or was refused as the table closed.
     */
    static String closeRacingAnAcquire(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock, freshName());
        String[] outcome = {"none"};
        String order = driver.race(List.of(step("close", table::close), step("acquire", () -> {
            try {
                outcome[0] = table.tryAcquire("race", LEASE).isPresent() ? "acquired" : "not acquired";
            } catch (IllegalStateException closed) {
                outcome[0] = "refused"; // the table closed first, or while it acquired: the lock was given back
            }
        })));
        assertThat(table.heldLeases()).as("held after close").isEmpty();
        assertNoOwnerLeft(table, clock);
        return order + " | " + outcome[0];
    }

    /**
     * A caller's release racing the renewal a clock advance runs on another thread: nothing stays held, the item has
     * no owner. Outcome: how the lease ended, and whether the renewal went through first.
     */
    static String releaseRacingARenewal(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock, freshName());
        Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
        java.time.Instant acquiredAt = lease.renewedAt();
        String order = driver.race(
                List.of(step("release", lease::release), step("renewal", () -> clock.advance(LEASE.dividedBy(3)))));
        assertThat(lease.isHeld()).as("held after release").isFalse();
        assertThat(table.heldLeases()).isEmpty();
        assertThat(table.read("race").orElseThrow().owner())
                .as("owner after release")
                .isEmpty();
        table.close();
        return order + " | " + lease.end().map(LeaseEnd::name).orElse("not ended") + " | "
                + (lease.renewedAt().equals(acquiredAt) ? "not renewed" : "renewed");
    }

    /**
     * A renewal answered as the lease expires: a jump of the clock past the lease's end runs the expiry watch while a
     * caller writes under the held check and another asks whether it is held. After the timer has run: not held, and
     * a held check of the ended lease fails. Outcome: whether the write passed.
     */
    static String aHeldCheckRacingTheLeasesEnd(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock, freshName());
        Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
        clock.advance(LEASE.minusMillis(LEASE.toMillis() / 3 + 1)); // just before the renewal falls due
        String[] write = {"none"};
        String order = driver.race(List.of(
                step("advance", () -> clock.jump(LEASE.multipliedBy(2))), // the renewal never runs: it expires
                step("write", () -> {
                    try {
                        lease.transactWrite();
                        write[0] = "passed";
                    } catch (LeaseLostException ended) {
                        write[0] = "refused"; // the lease ended first: refused, as it must be
                    }
                }),
                step("check", lease::isHeld)));
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
        return order + " | write " + write[0];
    }

    /**
     * A waiter woken as its table closes: another table's holder releases on one thread while the waiter's table
     * closes on another; the waiter's future completes before the clock moves on (the close ends it if the release
     * did not hand it the lock), and nothing is held. Outcome: whether the waiter got the lock or was ended.
     */
    static String aWaiterWokenAsTheTableCloses(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        String name = freshName();
        LockTable holderTable = table(clock, name);
        LockTable waiterTable = table(clock, name);
        Lease held = holderTable.tryAcquire("race", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = waiterTable.acquireAsync("race", LEASE, LEASE.multipliedBy(10));
        String order = driver.race(List.of(step("release", held::release), step("close", waiterTable::close)));
        String end;
        try {
            driver.await(waiting).release(); // before the clock moves: the close itself ends the waiter
            end = "granted";
        } catch (ExecutionException closed) {
            end = "closed"; // ended by the close: as it must be
        }
        clock.advance(LEASE); // whatever is left on the timer runs
        assertThat(waiterTable.heldLeases()).isEmpty();
        assertThat(holderTable.heldLeases()).isEmpty();
        holderTable.close();
        return order + " | " + end;
    }

    /**
     * A waiter handed the lock as its table closes: the holder and the waiter are of one table, so the release hands
     * the lock over to the waiter (a wake queued on the clock) while the table closes on another thread. The waiter's
     * future completes before the clock moves on (a close must call back a waiter whose wake it discarded: c51f19b),
     * no lease is held after close(), and the item has no owner. Outcome: the waiter's end.
     */
    static String aWaiterHandedTheLockAsItsTableCloses(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock, freshName());
        Lease held = table.tryAcquire("race", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = table.acquireAsync("race", LEASE, LEASE.multipliedBy(10));
        String order = driver.race(List.of(step("release", held::release), step("close", table::close)));
        String end;
        try {
            Lease granted = driver.await(waiting);
            assertThat(granted.isHeld())
                    .as("a lease granted to the waiter, held after close()")
                    .isFalse();
            end = "granted";
        } catch (ExecutionException closed) {
            end = "closed";
        }
        clock.advance(LEASE); // whatever is left on the timer runs
        assertThat(table.heldLeases()).as("held after close").isEmpty();
        assertNoOwnerLeft(table, clock);
        return order + " | " + end;
    }

    /**
     * A term listener that closes its own election while the caller closes it too: both closes return, the election
     * is over, nothing is held. Outcome: whether the term had started when the stop ran.
     */
    static String aListenerClosingItsOwnLeadership(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock, freshName());
        CompletableFuture<Leadership> self = new CompletableFuture<>();
        CountDownLatch termStarted = new CountDownLatch(1);
        Leadership leadership = table.lead("race", LEASE, term -> {
            termStarted.countDown();
            self.join().close();
        });
        self.complete(leadership);
        boolean[] stopped = {false};
        String order =
                driver.race(List.of(step("advance", () -> clock.advance(Duration.ofMillis(1))), step("stop", () -> {
                    if (termStarted.getCount() == 0) {
                        leadership.close();
                        stopped[0] = true;
                    }
                })));
        clock.advance(LEASE);
        leadership.close();
        assertThat(leadership.isLeader()).isFalse();
        assertThat(table.heldLeases()).isEmpty();
        table.close();
        return order + " | " + (stopped[0] ? "stopped in term" : "term not started at stop");
    }

    /**
     * close() racing a term's start: {@code runAsLeader} waits on one thread while a clock advance on another wins the
     * election and starts the term's work on a thread of its own, and a third closes the table. However they fall, the
     * call ends with the close ({@code IllegalStateException}, the table closed before or while leading), a term's
     * work that was called has been interrupted and has returned by then, and nothing is held. Outcome: whether the
     * work was called.
     */
    static String closeRacingATermsStart(Driver driver) throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock, freshName());
        String[] work = {"not called"};
        String[] run = {"returned"};
        String order = driver.race(List.of(
                step("lead", () -> {
                    try {
                        table.runAsLeader("race", LEASE, lease -> {
                            work[0] = "running";
                            try {
                                new CountDownLatch(1).await(); // until the lease's end interrupts it
                            } finally {
                                work[0] = "interrupted";
                            }
                        });
                    } catch (IllegalStateException closed) {
                        run[0] = "closed";
                    }
                }),
                step("advance", () -> clock.advance(Duration.ofMillis(1))),
                step("close", table::close)));
        assertThat(run[0]).as("how runAsLeader ended").isEqualTo("closed");
        assertThat(work[0]).as("the term's work once runAsLeader ended").isNotEqualTo("running");
        assertThat(table.heldLeases()).as("held after close").isEmpty();
        assertNoOwnerLeft(table, clock);
        return order + " | work " + work[0];
    }
}
