package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.pastalab.fray.junit.junit5.FrayTestExtension;
import org.pastalab.fray.junit.junit5.annotations.ConcurrencyTest;

/**
 * Controlled thread schedules with Fray: race scenarios of issue 35 ({@link RaceScenariosStressTest} runs them on real
 * threads) on an in-memory table with a {@link ManualLockClock}, so that the table starts no thread of its own and
 * every thread of a scenario is one of its steps. Fray runs each scenario {@value #ITERATIONS} times, each under a
 * schedule its default scheduler (POS, partial order sampling) draws; it switches threads at monitors and locks,
 * atomics and volatile fields, parks, and thread start and join (plain fields are not interleaved). Each iteration
 * asserts what must hold after the race; the class counts the distinct ends seen per scenario (the order in which the
 * steps began and ended, and the outcome), prints them, and fails a scenario that saw one only. A failure prints the
 * iteration; target/fray/fray-report holds Fray's log and the recording that replays it.
 *
 * <p>Runs only with {@code -Pfray} (docs/reliability.md, "Controlled thread schedules"): Fray's agents on an
 * instrumented JDK 25; the default build neither compiles nor runs it.
 */
@ExtendWith(FrayTestExtension.class)
class FrayScenariosTest {

    private static final int ITERATIONS = 10_000;
    private static final AtomicLong TABLES = new AtomicLong();
    private static final Duration LEASE = Duration.ofSeconds(3);
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

    private static LockTable table(ManualLockClock clock) {
        return LockTable.inMemory("fray-" + TABLES.incrementAndGet())
                .clock(clock)
                .build();
    }

    /**
     * Starts the steps on threads of their own, joins them, throws what a step threw, and returns the order in which
     * the steps began ({@code name<}) and ended ({@code name>}).
     */
    @SafeVarargs
    private static String race(Map.Entry<String, Step>... steps) throws InterruptedException {
        ConcurrentLinkedQueue<String> marks = new ConcurrentLinkedQueue<>();
        List<Throwable> failures = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (Map.Entry<String, Step> step : steps) {
            threads.add(new Thread(() -> {
                try {
                    marks.add(step.getKey() + "<");
                    step.getValue().run();
                    marks.add(step.getKey() + ">");
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
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

    /** The raced lock's item, read by a reader of the same table: no owner may be left after close(). */
    private static void assertNoOwnerLeft(LockTable table, ManualLockClock clock) {
        LockTable reader = LockTable.inMemory(table.tableName()).clock(clock).build();
        assertThat(reader.read("race").flatMap(LockRecord::owner))
                .as("owner left after close")
                .isEmpty();
        reader.close();
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private static Map.Entry<String, Step> step(String name, Step step) {
        return Map.entry(name, step);
    }

    /**
     * close() racing an acquire on another thread: nothing held, the item without an owner. Ends: the order of the
     * steps, and whether the acquire got the lock, found it held, or was refused as the table closed.
     */
    @ConcurrencyTest(iterations = ITERATIONS)
    void closeRacingAnAcquire() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock);
        String[] outcome = {"none"};
        String order = race(step("close", table::close), step("acquire", () -> {
            try {
                outcome[0] = table.tryAcquire("race", LEASE).isPresent() ? "acquired" : "not acquired";
            } catch (IllegalStateException closed) {
                outcome[0] = "refused"; // the table closed first, or while it acquired: the lock was given back
            }
        }));
        assertThat(table.heldLeases()).as("held after close").isEmpty();
        assertNoOwnerLeft(table, clock);
        passed("close racing an acquire", order + " | " + outcome[0]);
    }

    /**
     * A caller's release racing the renewal a clock advance runs on another thread: nothing stays held, the item has
     * no owner. Ends: the order of the steps, how the lease ended, and whether the renewal went through first.
     */
    @ConcurrencyTest(iterations = ITERATIONS)
    void releaseRacingARenewal() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock);
        Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
        java.time.Instant acquiredAt = lease.renewedAt();
        String order = race(step("release", lease::release), step("renewal", () -> clock.advance(LEASE.dividedBy(3))));
        assertThat(lease.isHeld()).as("held after release").isFalse();
        assertThat(table.heldLeases()).isEmpty();
        assertThat(table.read("race").orElseThrow().owner())
                .as("owner after release")
                .isEmpty();
        table.close();
        passed(
                "release racing a renewal",
                order + " | " + lease.end().map(LeaseEnd::name).orElse("not ended") + " | "
                        + (lease.renewedAt().equals(acquiredAt) ? "not renewed" : "renewed"));
    }

    /**
     * A renewal answered as the lease expires: a jump of the clock past the lease's end runs the expiry watch while a
     * caller writes under the held check and another asks whether it is held. After the timer has run: not held, and
     * a held check of the ended lease fails. Ends: the order of the steps, and whether the write passed.
     */
    @ConcurrencyTest(iterations = ITERATIONS)
    void aHeldCheckRacingTheLeasesEnd() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock);
        Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
        clock.advance(LEASE.minusMillis(LEASE.toMillis() / 3 + 1)); // just before the renewal falls due
        String[] write = {"none"};
        String order = race(
                step("advance", () -> clock.jump(LEASE.multipliedBy(2))), // the renewal never runs: it expires
                step("write", () -> {
                    try {
                        lease.transactWrite();
                        write[0] = "passed";
                    } catch (LeaseLostException ended) {
                        write[0] = "refused"; // the lease ended first: refused, as it must be
                    }
                }),
                step("check", lease::isHeld));
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
        passed("renewal answered as the lease expires", order + " | write " + write[0]);
    }

    /**
     * A waiter woken as its table closes: another table's holder releases on one thread while the waiter's table
     * closes on another; the waiter's future completes before the clock moves on (the close ends it if the release
     * did not hand it the lock; Fray reports a deadlock if nothing completes it), and nothing is held. Ends: the
     * order of the steps, and whether the waiter got the lock or was ended by the close.
     *
     * <p>The tables complete their futures on {@code ForkJoinPool.commonPool()} as asked in the iteration, not on the
     * default completion executor: lock-core keeps the JDK's default executor (the common pool) in a static field, and
     * Fray gives each iteration a common pool of its own and shuts it down at the iteration's end, so the pool kept
     * from an earlier iteration refuses the completion (RejectedExecutionException out of close()). In a JVM without
     * Fray the common pool lives as long as the process.
     */
    @ConcurrencyTest(iterations = ITERATIONS)
    void aWaiterWokenAsTheTableCloses() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        String name = "fray-shared-" + TABLES.incrementAndGet();
        LockTable holderTable = LockTable.inMemory(name)
                .clock(clock)
                .completionExecutor(ForkJoinPool.commonPool())
                .build();
        LockTable waiterTable = LockTable.inMemory(name)
                .clock(clock)
                .completionExecutor(ForkJoinPool.commonPool())
                .build();
        Lease held = holderTable.tryAcquire("race", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = waiterTable.acquireAsync("race", LEASE, LEASE.multipliedBy(10));
        String order = race(step("release", held::release), step("close", waiterTable::close));
        String end;
        try {
            // before the clock moves: the close itself ends the waiter (Fray reports a deadlock if nothing does)
            waiting.get().release();
            end = "granted";
        } catch (ExecutionException closed) {
            end = "closed"; // ended by the close: as it must be
        }
        assertThat(waiting).as("the waiter's future after close()").isDone();
        clock.advance(LEASE); // whatever is left on the timer runs
        assertThat(waiterTable.heldLeases()).isEmpty();
        assertThat(holderTable.heldLeases()).isEmpty();
        holderTable.close();
        passed("a waiter woken as the table closes", order + " | " + end);
    }

    /**
     * A waiter handed the lock as its table closes: the holder and the waiter are of one table, so the release hands
     * the lock over to the waiter (a wake queued on the clock) while the table closes on another thread. The waiter's
     * future completes before the clock moves on (a close must call back a waiter whose wake it discarded: c51f19b),
     * no lease is held after close(), and the item has no owner. Ends: the order of the steps, and the waiter's end.
     */
    @ConcurrencyTest(iterations = ITERATIONS)
    void aWaiterHandedTheLockAsItsTableCloses() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = LockTable.inMemory("fray-" + TABLES.incrementAndGet())
                .clock(clock)
                .completionExecutor(ForkJoinPool.commonPool()) // see aWaiterWokenAsTheTableCloses
                .build();
        Lease held = table.tryAcquire("race", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = table.acquireAsync("race", LEASE, LEASE.multipliedBy(10));
        String order = race(step("release", held::release), step("close", table::close));
        String end;
        try {
            Lease granted = waiting.get(); // before the clock moves: Fray reports a deadlock if nothing completes it
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
        passed("a waiter handed the lock as its table closes", order + " | " + end);
    }

    /**
     * A term listener that closes its own election while the caller closes it too: both closes return, the election
     * is over, nothing is held. Ends: the order of the steps, and whether the term had started when the stop ran.
     */
    @ConcurrencyTest(iterations = ITERATIONS)
    void aListenerClosingItsOwnLeadership() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        LockTable table = table(clock);
        CompletableFuture<Leadership> self = new CompletableFuture<>();
        CountDownLatch termStarted = new CountDownLatch(1);
        Leadership leadership = table.lead("race", LEASE, term -> {
            termStarted.countDown();
            self.join().close();
        });
        self.complete(leadership);
        boolean[] stopped = {false};
        String order = race(step("advance", () -> clock.advance(Duration.ofMillis(1))), step("stop", () -> {
            if (termStarted.getCount() == 0) {
                leadership.close();
                stopped[0] = true;
            }
        }));
        clock.advance(LEASE);
        leadership.close();
        assertThat(leadership.isLeader()).isFalse();
        assertThat(table.heldLeases()).isEmpty();
        table.close();
        passed(
                "a listener closing its own leadership",
                order + " | " + (stopped[0] ? "stopped in term" : "term not started at stop"));
    }
}
