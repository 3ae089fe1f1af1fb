package io.locktable;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker threads of a lock table: as many as the queued requests need, up to a bound, taking the task with the
 * earliest deadline first, and going away when idle. Renewals block on a synchronous client for a round trip each,
 * so a fixed pair of threads caps a table at two round trips in flight; here the concurrency follows the demand, and
 * when the demand still exceeds what the engine answers, the leases closest to their end are renewed first.
 *
 * <p><b>The bound rises while tasks are late.</b> Up to {@code baseThreads} threads start as tasks queue. Beyond
 * that, a thread is added only for a task that has waited for one longer than a twentieth of its renewal period (a
 * fortieth of the time it had left before its deadline when it was queued, at least 50 ms: half the wait at which
 * {@link RenewalLateness} calls a renewal late, so the workers grow before anyone is warned), up to {@link
 * #MAX_THREADS}: the engine answers slower than the base
 * threads renew, and more round trips in flight are what keeps the leases. Those extra threads go away after {@link
 * #EXTRA_KEEP_ALIVE} without work, so the table falls back to its base once the engine is fast again. The table's
 * timer checks for a late task when the queue has one that no thread took, so the bound rises even while every
 * thread is blocked on a request.
 */
final class ElasticWorkers implements Workers {

    /** The most worker threads a table runs, whatever the lateness. */
    static final int MAX_THREADS = Timing.MAX_WORKERS;
    /** A thread beyond the base goes away after this long without work. */
    static final Duration EXTRA_KEEP_ALIVE = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);
    private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** A queued task; late once it has waited past {@code lateAtNanos}. */
    private record Task(long deadlineNanos, long order, long lateAtNanos, Runnable work) {}

    private final int baseThreads;
    private final int maxThreads;
    private final ThreadFactory threads;
    private final @Nullable ScheduledExecutorService timer;
    // by deadline as a difference, so values that wrap still sort in time order; then first come, first served
    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) -> {
        long byDeadline = a.deadlineNanos() - b.deadlineNanos();
        return byDeadline != 0 ? (byDeadline < 0 ? -1 : 1) : Long.compare(a.order(), b.order());
    });
    private long order; // guarded by this
    private int running; // threads alive; guarded by this
    private int idle; // threads waiting for a task; guarded by this
    private int starting; // threads counted in that have not looked for a task yet; guarded by this
    private int peak; // the most threads alive at once; guarded by this
    private boolean checkScheduled; // guarded by this
    private boolean closed; // guarded by this

    /** Workers with a fixed bound, for tests. */
    ElasticWorkers(int maxThreads, ThreadFactory threads) {
        this(maxThreads, maxThreads, threads, null);
    }

    /**
     * @param baseThreads threads started as tasks queue
     * @param maxThreads the bound while tasks are late
     * @param timer where the check for a late task runs; null to never rise above the base
     */
    ElasticWorkers(int baseThreads, int maxThreads, ThreadFactory threads, @Nullable ScheduledExecutorService timer) {
        this.baseThreads = baseThreads;
        this.maxThreads = Math.max(baseThreads, maxThreads);
        this.threads = threads;
        this.timer = timer;
    }

    @Override
    public boolean run(Runnable task, long deadlineNanos) {
        boolean start;
        synchronized (this) {
            if (closed) {
                return false; // the table's leases were released already
            }
            long now = System.nanoTime();
            long lateAfter = Timing.workerGrowth(deadlineNanos - now);
            queue.add(new Task(deadlineNanos, order++, now + lateAfter, task));
            // each idle thread, and each started that has not looked yet, takes one task
            start = queue.size() > idle + starting && running < baseThreads;
            if (start) {
                started();
            } else {
                notify();
                start = growIfLate(now);
                scheduleCheck(now);
            }
        }
        if (start) {
            startThread();
        }
        return true;
    }

    /** How many tasks wait for a thread. */
    synchronized int queued() {
        return queue.size();
    }

    /** How many threads are alive. */
    synchronized int threads() {
        return running;
    }

    /** The most threads that were alive at once. */
    synchronized int peakThreads() {
        return peak;
    }

    private void started() {
        running++;
        starting++;
        peak = Math.max(peak, running);
    }

    private void startThread() {
        try {
            threads.newThread(this::work).start();
        } catch (RuntimeException | OutOfMemoryError e) {
            synchronized (this) {
                running--;
                starting--;
            }
            log.warn("Lock table could not start a worker thread; its queued tasks wait for the others", e);
        }
    }

    /**
     * Counts a new thread in if the task that is due first has waited too long and no thread is free for it; the
     * caller starts it. One at a time: each new thread checks again before it takes its task.
     */
    private boolean growIfLate(long now) {
        if (closed || running >= maxThreads || queue.size() <= idle + starting) {
            return false;
        }
        Task first = queue.peek();
        if (first == null || now - first.lateAtNanos() < 0) {
            return false;
        }
        started();
        return true;
    }

    /** While a task waits with no thread free, the timer checks when it will be late. */
    private void scheduleCheck(long now) {
        if (timer == null || checkScheduled || closed || running >= maxThreads || queue.size() <= idle + starting) {
            return;
        }
        Task first = queue.peek();
        long delay = Math.max(0, first.lateAtNanos() - now);
        try {
            timer.schedule(this::check, delay, TimeUnit.NANOSECONDS);
            checkScheduled = true;
        } catch (RejectedExecutionException e) {
            // the table is closing
        }
    }

    private void check() {
        boolean start;
        synchronized (this) {
            checkScheduled = false;
            long now = System.nanoTime();
            start = growIfLate(now);
            scheduleCheck(now);
        }
        if (start) {
            startThread();
        }
    }

    private void work() {
        synchronized (this) {
            starting--;
        }
        while (true) {
            Task task = take();
            if (task == null) {
                return;
            }
            Thread.interrupted(); // a stray interrupt meant for no task must not abort this task's request
            try {
                task.work().run();
            } catch (Throwable e) { // a task's failure must not end the thread that serves the others
                log.warn("A lock table task failed", e);
            }
        }
    }

    private @Nullable Task take() {
        boolean start;
        Task task;
        synchronized (this) {
            long idleSince = System.nanoTime();
            while (queue.isEmpty()) {
                long keepAlive = running > baseThreads ? EXTRA_KEEP_ALIVE.toNanos() : KEEP_ALIVE_NANOS;
                long left = keepAlive - (System.nanoTime() - idleSince);
                if (closed || left <= 0) {
                    running--;
                    return null;
                }
                idle++;
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    // only close() closes the workers: a stray interrupt of one idle thread (code that interrupts
                    // every thread of a group, say) must not stop the renewals of every lease; it is dropped here
                } finally {
                    idle--;
                }
            }
            task = queue.poll();
            long now = System.nanoTime();
            start = growIfLate(now); // the next one may be late too
            scheduleCheck(now);
        }
        if (start) {
            startThread();
        }
        return task;
    }

    /** Drops what is queued; threads end after their current task. */
    synchronized void close() {
        closed = true;
        queue.clear();
        notifyAll();
    }
}
