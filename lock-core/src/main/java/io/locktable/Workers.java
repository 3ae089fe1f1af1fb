package io.locktable;

/**
 * Runs the requests of renewals, releases and give-backs off the timer thread, earliest deadline first when they
 * queue up.
 */
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
