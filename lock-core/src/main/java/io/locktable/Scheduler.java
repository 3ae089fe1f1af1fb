package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of a lock table, its production clock ({@code System.nanoTime()}) and the timer of its leases. Nothing
 * else of the library starts a thread. Each is a daemon named after the table, started when needed and gone after
 * {@link Timing#IDLE} without work:
 *
 * <ul>
 *   <li><b>One timer thread</b> for schedules and lease expiries; its tasks never block.
 *   <li><b>Workers</b> for requests ({@link #run}), earliest deadline first: as many as the queue needs up to the
 *       base bound, and one more per task that waited past {@link Timing#workerGrowth} (before a renewal is reported
 *       late), up to {@link Timing#MAX_WORKERS}. The timer checks a queued task no worker took, so the bound rises
 *       even while every worker is blocked. Extra workers go after {@link Timing#EXTRA_KEEP_ALIVE}.
 *   <li><b>One event thread</b> for user callbacks, one at a time, in order ({@link #events()}).
 * </ul>
 *
 * <p>No thread waits inside a monitor: the workers' state is guarded by a {@link ReentrantLock}.
 */
final class Scheduler implements LockClock, AutoCloseable {

    /** Runs tasks that may block on a request; a clock of the caller's own runs them its way. */
    @FunctionalInterface
    interface Workers {

        /**
         * Runs a task that may block on a request.
         *
         * @param task the task
         * @param deadlineNanos when it must have run, on the monotonic clock: the end of the lease it serves
         * @return false if the workers are closed and the task will not run: the caller decides what becomes of it
         */
        boolean run(Runnable task, long deadlineNanos);
    }

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /** A queued task; late once it has waited past {@code lateAtNanos}. */
    private record Task(long deadlineNanos, long order, long lateAtNanos, Runnable work) {}

    private final ScheduledThreadPoolExecutor timer;
    private final ThreadPoolExecutor events;
    private final ThreadFactory workerThreads;
    private final int baseWorkers;
    private final int maxWorkers;
    private final long idleNanos;
    private final long extraIdleNanos;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a task is queued, and at close. */
    private final Condition queuedOrClosed = lock.newCondition();
    // by deadline as a difference, so values that wrap still sort in time order; then first come, first served
    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) -> {
        long byDeadline = a.deadlineNanos() - b.deadlineNanos();
        return byDeadline != 0 ? (byDeadline < 0 ? -1 : 1) : Long.compare(a.order(), b.order());
    });
    private long order; // guarded by lock
    private int running; // workers alive; guarded by lock
    private int idle; // workers waiting for a task; guarded by lock
    private int starting; // workers counted in that have not looked for a task yet; guarded by lock
    private int peak; // the most workers alive at once; guarded by lock
    private boolean checkScheduled; // guarded by lock
    private boolean closed; // guarded by lock

    Scheduler(String threadNamePrefix, int baseWorkers) {
        this(threadNamePrefix, baseWorkers, Timing.MAX_WORKERS, Timing.IDLE);
    }

    /** A scheduler with other bounds, whose threads go away after {@code idle} (extra workers no later), for tests. */
    Scheduler(String threadNamePrefix, int baseWorkers, int maxWorkers, Duration idle) {
        this.idleNanos = idle.toNanos();
        this.extraIdleNanos = Math.min(Timing.EXTRA_KEEP_ALIVE.toNanos(), idleNanos);
        this.timer = new ScheduledThreadPoolExecutor(1, daemons(threadNamePrefix + "-timer", true));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timer.setKeepAliveTime(idleNanos, TimeUnit.NANOSECONDS);
        timer.allowCoreThreadTimeOut(true); // it stays while a task is scheduled: the timer of held leases is one
        // one thread at most, in order: the queue is first in, first out
        this.events = new ThreadPoolExecutor(
                1,
                1,
                idleNanos,
                TimeUnit.NANOSECONDS,
                new LinkedBlockingQueue<>(),
                daemons(threadNamePrefix + "-events", false));
        events.allowCoreThreadTimeOut(true);
        this.workerThreads = daemons(threadNamePrefix + "-worker", true);
        this.baseWorkers = baseWorkers;
        this.maxWorkers = Math.max(baseWorkers, maxWorkers);
    }

    // ---- the clock and the timer

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

    // ---- the event thread

    /** The event thread: runs callbacks one at a time, in order. */
    Executor events() {
        return events;
    }

    // ---- the workers

    @Override
    public void execute(Runnable task) {
        run(task, System.nanoTime()); // dropped once closed: the table's leases were released already
    }

    /** The workers, for tasks with a deadline. */
    Workers workers() {
        return this::run;
    }

    /** Queues a task for the workers: {@link Workers#run}. */
    boolean run(Runnable task, long deadlineNanos) {
        boolean start;
        lock.lock();
        try {
            if (closed) {
                return false; // the table's leases were released already
            }
            long now = System.nanoTime();
            long lateAfter = Timing.workerGrowth(deadlineNanos - now);
            queue.add(new Task(deadlineNanos, order++, now + lateAfter, task));
            // each idle worker, and each started that has not looked yet, takes one task
            start = queue.size() > idle + starting && running < baseWorkers;
            if (start) {
                countStarted();
            } else {
                queuedOrClosed.signal();
                start = growIfLate(now);
                scheduleCheck(now);
            }
        } finally {
            lock.unlock();
        }
        if (start) {
            startWorker();
        }
        return true;
    }

    /** How many tasks wait for a worker. */
    int queued() {
        return guarded(queue::size);
    }

    /** How many workers are alive. */
    int liveWorkers() {
        return guarded(() -> running);
    }

    /** The most workers that were alive at once. */
    int peakWorkers() {
        return guarded(() -> peak);
    }

    private int guarded(IntSupplier read) {
        lock.lock();
        try {
            return read.getAsInt();
        } finally {
            lock.unlock();
        }
    }

    private void countStarted() {
        running++;
        starting++;
        peak = Math.max(peak, running);
    }

    /** Starts a worker counted in already; called without the lock held. */
    private void startWorker() {
        try {
            workerThreads.newThread(this::work).start();
        } catch (RuntimeException | OutOfMemoryError e) {
            lock.lock();
            try {
                running--;
                starting--;
            } finally {
                lock.unlock();
            }
            log.warn("Lock table could not start a worker thread; its queued tasks wait for the others", e);
        }
    }

    /**
     * Counts a new worker in if the task that is due first has waited too long and no worker is free for it; the
     * caller starts it. One at a time: each new worker checks again before it takes its task. With the lock held.
     */
    private boolean growIfLate(long now) {
        if (closed || running >= maxWorkers || queue.size() <= idle + starting) {
            return false;
        }
        Task first = queue.peek();
        if (first == null || now - first.lateAtNanos() < 0) {
            return false;
        }
        countStarted();
        return true;
    }

    /** While a task waits with no worker free, the timer checks when it will be late. With the lock held. */
    private void scheduleCheck(long now) {
        if (checkScheduled || closed || running >= maxWorkers || queue.size() <= idle + starting) {
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

    /** On the timer: a worker for the first task if it is late by now, and the next check. */
    private void check() {
        boolean start;
        lock.lock();
        try {
            checkScheduled = false;
            long now = System.nanoTime();
            start = growIfLate(now);
            scheduleCheck(now);
        } finally {
            lock.unlock();
        }
        if (start) {
            startWorker();
        }
    }

    private void work() {
        lock.lock();
        try {
            starting--;
        } finally {
            lock.unlock();
        }
        while (true) {
            Task task = take();
            if (task == null) {
                return;
            }
            Thread.interrupted(); // a stray interrupt meant for no task must not abort this task's request
            try {
                task.work().run();
            } catch (Throwable e) { // a task's failure must not end the worker that serves the others
                log.warn("A lock table task failed", e);
            }
        }
    }

    /** The next task, earliest deadline first; null once closed or idle too long, the worker counted out. */
    private @Nullable Task take() {
        boolean start;
        Task task;
        lock.lock();
        try {
            long idleSince = System.nanoTime();
            while (queue.isEmpty()) {
                long keepAlive = running > baseWorkers ? extraIdleNanos : idleNanos;
                long left = keepAlive - (System.nanoTime() - idleSince);
                if (closed || left <= 0) {
                    running--;
                    return null;
                }
                idle++;
                try {
                    queuedOrClosed.awaitNanos(left);
                } catch (InterruptedException e) {
                    // only close() closes the workers: a stray interrupt of one idle worker (code that interrupts
                    // every thread of a group, say) must not stop the renewals of every lease; it is dropped here
                } finally {
                    idle--;
                }
            }
            task = queue.poll();
            long now = System.nanoTime();
            start = growIfLate(now); // the next one may be late too
            scheduleCheck(now);
        } finally {
            lock.unlock();
        }
        if (start) {
            startWorker();
        }
        return task;
    }

    // ---- all of them

    /**
     * Stops the timer, drops the queued tasks (workers end after their current one, and {@link #run} returns false
     * from now on), and gives the event thread a second for the events of the last releases.
     */
    @Override
    public void close() {
        timer.shutdownNow();
        lock.lock();
        try {
            closed = true;
            queue.clear();
            queuedOrClosed.signalAll();
        } finally {
            lock.unlock();
        }
        events.shutdown(); // the events of the last releases are still delivered
        try {
            events.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether this is a timer or worker thread of a table, where no user code may run: not the event thread. */
    static boolean onTimerOrWorker() {
        return Thread.currentThread() instanceof TimerOrWorker;
    }

    /** Names the threads and makes them daemons, so a lock table never keeps a JVM alive. */
    private static ThreadFactory daemons(String prefix, boolean timerOrWorker) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            String name = prefix + "-" + count.incrementAndGet();
            Thread thread = timerOrWorker ? new TimerOrWorker(task, name) : new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    private static final class TimerOrWorker extends Thread {
        TimerOrWorker(Runnable task, String name) {
            super(task, name);
        }
    }
}
