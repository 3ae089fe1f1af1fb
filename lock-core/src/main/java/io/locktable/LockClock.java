package io.locktable;

import java.time.Instant;
import java.util.concurrent.Future;

/**
 * The time source and scheduler of a {@link LockTable}: every lease decision reads {@link #nanoTime()}, every wait
 * {@link #sleep(long)}s and every timer task is {@link #schedule(Runnable, long) scheduled} here. Tests pass their
 * own ({@link LockTable.Builder#clock(LockClock)}, {@link ManualLockClock}) to drive time. The wall clock ({@link
 * #instant()}) is for display and time to live only, never to decide whether a lease is held.
 */
public interface LockClock {

    /** @return the monotonic clock, in nanoseconds from an arbitrary origin */
    long nanoTime();

    /** @return the wall clock, for display and time to live only */
    Instant instant();

    /**
     * Blocks the calling thread for the given time.
     *
     * @param nanos how long, in nanoseconds; zero or less returns at once
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    void sleep(long nanos) throws InterruptedException;

    /**
     * Runs a short task once after a delay, on the clock's timer thread; the task must not block (lease expiries run
     * this way).
     *
     * @param task the task
     * @param delayNanos the delay in nanoseconds
     * @return a future that cancels the task if it has not started
     */
    Future<?> schedule(Runnable task, long delayNanos);

    /**
     * Runs a task that may block on a request; the default runs it on the calling thread, for clocks driven by hand.
     *
     * @param task the task
     */
    default void execute(Runnable task) {
        task.run();
    }
}
