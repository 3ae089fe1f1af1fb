package io.locktable;

/**
 * The context of the thread that called an acquire, made current around that acquire's listener calls on the event
 * thread, so that an observation a listener starts there has the caller's as its parent ({@link
 * LockTable.Builder#propagateContextToListeners}). {@link #NONE} when the table is not told to, and for the acquires of
 * a leadership, which have no caller.
 */
@FunctionalInterface
interface CallerContext {

    /** Nothing captured: the action runs as it is, and nothing is allocated for it. */
    CallerContext NONE = action -> action;

    /** {@return the action, run with this context current on the thread that runs it and restored after it} */
    Runnable around(Runnable action);

    /** Captures the context of the calling thread, once per acquire. */
    @FunctionalInterface
    interface Capture {

        /** Captures nothing: for a table not told to propagate. */
        Capture NONE = () -> CallerContext.NONE;

        /** {@return the context of the calling thread} */
        CallerContext capture();
    }
}
