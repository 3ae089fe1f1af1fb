package io.locktable;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The event thread of a table whose clock the caller drives ({@link LockTable.Builder#clock}): events run on the
 * thread that causes them, one at a time and in order, as on a table's own event thread, but never inside a task of
 * the clock's timer; one raised there runs when that task returns. So a listener that blocks, or moves the clock on,
 * holds up no expiry of another lease, as on a real event thread; and an event a listener causes runs after it.
 */
final class DrivenEvents implements Executor {

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>(); // guarded by lock
    private boolean running; // an event runs now, on some thread; guarded by lock
    /** How deep the calling thread is in timer tasks of this table's clock. */
    private final ThreadLocal<int[]> inTimerTask = ThreadLocal.withInitial(() -> new int[1]);

    @Override
    public void execute(Runnable event) {
        lock.lock();
        try {
            queue.add(event);
        } finally {
            lock.unlock();
        }
        runQueued();
    }

    /** The caller's clock, whose timer tasks run this table's events after them, not inside them. */
    LockClock around(LockClock clock) {
        return new LockClock() {
            @Override
            public long nanoTime() {
                return clock.nanoTime();
            }

            @Override
            public Instant instant() {
                return clock.instant();
            }

            @Override
            public void sleep(long nanos) throws InterruptedException {
                clock.sleep(nanos);
            }

            @Override
            public Future<?> schedule(Runnable task, long delayNanos) {
                return clock.schedule(new TimerTask(task), delayNanos);
            }

            @Override
            public void execute(Runnable task) {
                clock.execute(task);
            }
        };
    }

    /** Runs the queued events on this thread, unless it is in a timer task or another event runs now. */
    private void runQueued() {
        if (inTimerTask.get()[0] > 0) {
            return;
        }
        while (true) {
            Runnable next;
            lock.lock();
            try {
                if (running || queue.isEmpty()) {
                    return; // the thread that runs an event runs the ones queued behind it
                }
                running = true;
                next = queue.poll();
            } finally {
                lock.unlock();
            }
            try {
                next.run();
            } finally {
                lock.lock();
                try {
                    running = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** A task of the clock's timer: the events it raises run once it returns. */
    private final class TimerTask implements Runnable {
        private final Runnable task;

        TimerTask(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            int[] depth = inTimerTask.get();
            depth[0]++;
            try {
                task.run();
            } finally {
                depth[0]--;
            }
            runQueued();
        }

        @Override
        public String toString() {
            return task.toString(); // what a test that lists the clock's tasks reads
        }
    }
}
