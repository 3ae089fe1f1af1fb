package io.locktable;

import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The event thread of a table whose clock the caller drives ({@link LockTable.Builder#clock}): events run on the
 * thread that causes them, one at a time and in order, as on a table's own event thread, but never inside a task of
 * the clock's timer; one raised there runs when that task returns. So a listener that blocks, or moves the clock on,
 * holds up no expiry of another lease, as on a real event thread; and an event a listener causes runs after it.
 */
final class DrivenEvents implements Executor {

    private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Whether a thread runs the queued events now: the one that set it runs them all, one at a time. */
    private final AtomicBoolean running = new AtomicBoolean();
    /** How deep the calling thread is in timer tasks of this table's clock. */
    private final ThreadLocal<int[]> inTimerTask = ThreadLocal.withInitial(() -> new int[1]);

    @Override
    public void execute(Runnable event) {
        queue.add(event);
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
        // an event added after the loop found none, while it still ran, is run by the next turn of the outer loop
        while (!queue.isEmpty() && running.compareAndSet(false, true)) {
            try {
                Runnable next;
                while ((next = queue.poll()) != null) {
                    next.run();
                }
            } finally {
                running.set(false);
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
