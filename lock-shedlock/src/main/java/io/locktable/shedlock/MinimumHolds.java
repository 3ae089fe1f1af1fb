package io.locktable.shedlock;

import io.locktable.Lease;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leases of runs that ended before their {@code lockAtLeastFor}, and releases each when it is due, on one
 * daemon thread of its own. The lease renews itself meanwhile, as any lease does. Only {@link Lease#release()} runs on
 * that thread, never the caller's code, so a slow job or listener cannot delay another lock's release.
 */
final class MinimumHolds implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MinimumHolds.class);

    /** The thread goes away after this long without a lease to keep, and comes back with the next one. */
    private static final long IDLE_SECONDS = 30;

    private final ScheduledThreadPoolExecutor timer;
    /** The leases kept until their minimum hold ends; a lease leaves it once, by the timer or by {@link #close()}. */
    private final Set<Lease> kept = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    MinimumHolds() {
        timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "locktable-shedlock-release");
            thread.setDaemon(true);
            return thread;
        });
        timer.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true); // keeps its one thread while a release is queued, drops it when idle
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Releases the lease at {@code dueNanos} on the monotonic clock: at once, on the calling thread, when that time
     * has passed (as ShedLock's own providers unlock), otherwise from the timer thread then.
     */
    void releaseAt(Lease lease, long dueNanos) {
        long delay = dueNanos - System.nanoTime();
        if (delay <= 0 || closed) {
            lease.release();
            return;
        }
        kept.add(lease); // before the schedule, so that a release due at once finds it
        try {
            timer.schedule(() -> releaseKept(lease), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            releaseKept(lease); // closed meanwhile
        }
    }

    /** How many leases are kept for their minimum hold. */
    int keptCount() {
        return kept.size();
    }

    private void releaseKept(Lease lease) {
        if (!kept.remove(lease)) {
            return; // close() released it already
        }
        try {
            lease.release(); // a lease lost meanwhile sends nothing; a failed release is logged by the table
        } catch (RuntimeException e) {
            log.warn("Release of lock '{}' after its lockAtLeastFor failed: {}", lease.name(), e.toString());
        }
    }

    /** Releases every kept lease now, on the calling thread, and stops the timer thread. Idempotent. */
    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        for (Lease lease : kept) {
            releaseKept(lease);
        }
    }
}
