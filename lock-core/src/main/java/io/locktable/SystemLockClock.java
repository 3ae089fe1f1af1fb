package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The production clock: {@code System.nanoTime()}, one timer thread for schedules and expiries, worker threads for
 * the requests of renewals and releases ({@link ElasticWorkers}: up to the table's bound, more only while renewals
 * are late), and one event thread for the callbacks of users (listeners, {@link Lease#whenEnded()}), all daemons.
 * Each starts when first needed and goes away after {@link #IDLE} without work: a table that holds nothing and
 * sends nothing runs no thread.
 */
final class SystemLockClock implements LockClock, AutoCloseable {

    /** The timer and event threads go away after this long without work; the next task starts them again. */
    static final Duration IDLE = Duration.ofSeconds(30);

    private final ScheduledThreadPoolExecutor timer;
    private final ElasticWorkers workers;
    private final ThreadPoolExecutor events;

    SystemLockClock(String threadNamePrefix, int workerThreads) {
        this(threadNamePrefix, workerThreads, IDLE);
    }

    /** A clock whose timer and event threads go away after {@code idle}, for tests. */
    SystemLockClock(String threadNamePrefix, int workerThreads, Duration idle) {
        this.timer = new ScheduledThreadPoolExecutor(1, Threads.daemons(threadNamePrefix + "-timer"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timer.setKeepAliveTime(idle.toNanos(), TimeUnit.NANOSECONDS);
        timer.allowCoreThreadTimeOut(true); // it stays while a task is scheduled: the timer of held leases is one
        this.workers = new ElasticWorkers(
                workerThreads, ElasticWorkers.MAX_THREADS, Threads.daemons(threadNamePrefix + "-worker"), timer);
        // one thread at most, in order: the queue is first in, first out
        this.events = new ThreadPoolExecutor(
                1,
                1,
                idle.toNanos(),
                TimeUnit.NANOSECONDS,
                new LinkedBlockingQueue<>(),
                Threads.daemons(threadNamePrefix + "-events"));
        events.allowCoreThreadTimeOut(true);
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
        workers.run(task, System.nanoTime()); // dropped once closed: the table's leases were released already
    }

    /** The worker threads, for tasks with a deadline. */
    Workers workers() {
        return workers;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        workers.close();
        events.shutdown(); // the events of the last releases are still delivered
        try {
            events.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
