package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * How a lease's renewals are scheduled, in memory: a caller's monitor does not hold them up and a release leaves no
 * task behind. What renewal requests do over an engine, and over a failing network, is in {@link RenewalTest}.
 */
class RenewalSchedulingTest {

    @AutoClose
    private final MemoryTables tables = new MemoryTables("RenewalScheduling");

    @Test
    void aCallerThatSynchronizesOnALeaseDoesNotHoldUpItsRenewals() throws Exception {
        LockTable a = tables.add();
        Lease lease = a.tryAcquire(Contenders.lockName(), Duration.ofSeconds(2)).orElseThrow();
        CompletableFuture<Void> held = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            synchronized (lease) { // the lease is the caller's object: the library's monitors are its own
                held.complete(null);
                try {
                    Thread.sleep(6_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        caller.start();
        held.get(5, TimeUnit.SECONDS);

        Thread.sleep(5_000); // two and a half leases, with the lease's monitor held by the caller the whole time

        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.whenEnded()).isNotDone();
        caller.join();
    }

    @Test
    void aReleasedLeaseLeavesNoTaskScheduled() throws Exception {
        List<java.util.concurrent.Future<?>> scheduled = new CopyOnWriteArrayList<>();
        Scheduler system = new Scheduler("test-clock", 2);
        LockClock recording = new LockClock() {
            @Override
            public long nanoTime() {
                return system.nanoTime();
            }

            @Override
            public java.time.Instant instant() {
                return system.instant();
            }

            @Override
            public void sleep(long nanos) throws InterruptedException {
                system.sleep(nanos);
            }

            @Override
            public java.util.concurrent.Future<?> schedule(Runnable task, long delayNanos) {
                java.util.concurrent.Future<?> future = system.schedule(task, delayNanos);
                scheduled.add(future);
                return future;
            }

            @Override
            public void execute(Runnable task) {
                system.execute(task);
            }
        };
        try {
            LockTable a = tables.add(builder -> builder.clock(recording));
            Lease lease =
                    a.tryAcquire(Contenders.lockName(), Duration.ofHours(1)).orElseThrow();
            // one task pending on the clock, for the table's earliest wake: this lease's renewal
            assertThat(scheduled).filteredOn(task -> !task.isDone()).hasSize(1);

            lease.release();

            assertThat(scheduled).allMatch(java.util.concurrent.Future::isCancelled);
        } finally {
            system.close();
        }
    }
}
