package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * How a lease's renewals are scheduled, in memory: a caller's monitor does not hold them up and nothing scheduled
 * keeps a released lease. What renewal requests do over an engine, and over a failing network, is in {@link RenewalTest}.
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
    void aReleasedLeaseIsKeptByNothingTheTableScheduled() {
        LockTable a = tables.add();
        Lease lease = a.tryAcquire(Contenders.lockName(), Duration.ofHours(1)).orElseThrow();
        lease.release();
        // the table's one task on the clock stays until its time (the renewal of this lease was due in 20 minutes),
        // to spare the next acquire a wake of the timer thread; it must not keep the lease alive meanwhile
        WeakReference<Lease> released = new WeakReference<>(lease);
        lease = null;

        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return released.get() == null;
        });
        assertThat(a.heldLeases()).isEmpty();
    }
}
