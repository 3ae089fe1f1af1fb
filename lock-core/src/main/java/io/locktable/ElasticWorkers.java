package io.locktable;

import java.util.PriorityQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker threads of a lock table: as many as the queued requests need, up to a bound, taking the task with the
 * earliest deadline first, and going away when idle. Renewals block on a synchronous client for a round trip each,
 * so a fixed pair of threads caps a table at two round trips in flight; here the concurrency follows the demand, and
 * when the demand still exceeds what the engine answers, the leases closest to their end are renewed first.
 */
final class ElasticWorkers implements Workers {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);
    private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private record Task(long deadlineNanos, long order, Runnable work) {}

    private final int maxThreads;
    private final ThreadFactory threads;
    // by deadline as a difference, so values that wrap still sort in time order; then first come, first served
    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) -> {
        long byDeadline = a.deadlineNanos() - b.deadlineNanos();
        return byDeadline != 0 ? (byDeadline < 0 ? -1 : 1) : Long.compare(a.order(), b.order());
    });
    private long order; // guarded by this
    private int running; // threads alive; guarded by this
    private int idle; // threads waiting for a task; guarded by this
    private boolean closed; // guarded by this

    ElasticWorkers(int maxThreads, ThreadFactory threads) {
        this.maxThreads = maxThreads;
        this.threads = threads;
    }

    @Override
    public void run(Runnable task, long deadlineNanos) {
        boolean start;
        synchronized (this) {
            if (closed) {
                return; // the table's leases were released already
            }
            queue.add(new Task(deadlineNanos, order++, task));
            start = queue.size() > idle && running < maxThreads; // each idle thread takes one task
            if (start) {
                running++;
            } else {
                notify();
            }
        }
        if (start) {
            threads.newThread(this::work).start();
        }
    }

    /** How many tasks wait for a thread. */
    synchronized int queued() {
        return queue.size();
    }

    /** How many threads are alive. */
    synchronized int threads() {
        return running;
    }

    private void work() {
        while (true) {
            Task task = take();
            if (task == null) {
                return;
            }
            try {
                task.work().run();
            } catch (Throwable e) { // a task's failure must not end the thread that serves the others
                log.warn("A lock table task failed", e);
            }
        }
    }

    private synchronized Task take() {
        long idleSince = System.nanoTime();
        while (queue.isEmpty()) {
            long left = KEEP_ALIVE_NANOS - (System.nanoTime() - idleSince);
            if (closed || left <= 0) {
                running--;
                return null;
            }
            idle++;
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                closed = true;
            } finally {
                idle--;
            }
        }
        return queue.poll();
    }

    /** Drops what is queued; threads end after their current task. */
    synchronized void close() {
        closed = true;
        queue.clear();
        notifyAll();
    }
}
