package io.locktable;

import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The production clock: {@code System.nanoTime()}, one timer thread for schedules and expiries, and a fixed pool
 * of worker threads for the requests of renewals and releases, all daemons.
 */
final class SystemLockClock implements LockClock, AutoCloseable {

    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService workers;

    SystemLockClock(String threadNamePrefix, int workerThreads) {
        this.timer = new ScheduledThreadPoolExecutor(1, daemonThreads(threadNamePrefix + "-timer"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.workers = Executors.newFixedThreadPool(workerThreads, daemonThreads(threadNamePrefix + "-worker"));
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
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
    }
}
