package io.locktable;

import java.time.Instant;
import java.util.concurrent.Future;

/**
 * The time source and scheduler of a {@link LockTable}: every lease decision reads {@link #nanoTime()}, every wait
 * goes through {@link #sleep(long)} and every renewal through {@link #schedule(Runnable, long)}. Production code
 * uses the default, {@code System.nanoTime()} and a small pool of daemon threads; tests pass their own to drive
 * time with {@link LockTable.Builder#clock(LockClock)}.
 *
 * <p>The wall clock ({@link #instant()}) is used only for display and for time-to-live attributes, never to decide
 * whether a lease is held.
 */
public interface LockClock {

    /**
     * The monotonic clock, in nanoseconds from an arbitrary origin.
     *
     * @return the current value
     */
    long nanoTime();

    /**
     * The wall clock, for display and time to live only.
     *
     * @return the current instant
     */
    Instant instant();

    /**
     * Blocks the calling thread for the given time.
     *
     * @param nanos how long, in nanoseconds; zero or less returns at once
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    void sleep(long nanos) throws InterruptedException;

    /**
     * Runs a short task once after a delay, on the clock's timer thread. The task must not block: lease expiries
     * run this way, so that they stay on time whatever the requests do.
     *
     * @param task the task
     * @param delayNanos the delay in nanoseconds
     * @return a future that cancels the task if it has not started
     */
    Future<?> schedule(Runnable task, long delayNanos);

    /**
     * Runs a task that may block on a request (a renewal, a release) on one of the clock's worker threads. The
     * default runs it on the calling thread, for clocks that drive time by hand.
     *
     * @param task the task
     */
    default void execute(Runnable task) {
        task.run();
    }
}
