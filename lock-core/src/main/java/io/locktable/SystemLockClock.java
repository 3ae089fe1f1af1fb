package io.locktable;

import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The production clock: {@code System.nanoTime()}, one timer thread for schedules and expiries, a fixed pool of
 * worker threads for the requests of renewals and releases, and one event thread for the callbacks of users
 * (listeners, {@link Lease#whenEnded()}), all daemons.
 */
final class SystemLockClock implements LockClock, AutoCloseable {

    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService workers;
    private final ExecutorService events;

    SystemLockClock(String threadNamePrefix, int workerThreads) {
        this.timer = new ScheduledThreadPoolExecutor(1, Threads.daemons(threadNamePrefix + "-timer"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.workers = Executors.newFixedThreadPool(workerThreads, Threads.daemons(threadNamePrefix + "-worker"));
        this.events = Executors.newSingleThreadExecutor(Threads.daemons(threadNamePrefix + "-events"));
    }

    /** The event thread: runs callbacks one at a time, in order. */
    Executor events() {
        return events;
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant instant() {
        return Instant.now();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } else if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        return timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    @Override
    public void execute(Runnable task) {
        try {
            workers.execute(task);
        } catch (RejectedExecutionException e) {
            // closed: the lock table's leases were released already
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        workers.shutdownNow();
        events.shutdown(); // the events of the last releases are still delivered
        try {
            events.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
