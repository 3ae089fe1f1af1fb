package io.locktable.spring;

import org.jspecify.annotations.Nullable;

/**
 * Hears each {@link LockedRun} call from before its lock is asked for to its end, skipped calls included: for
 * observations, so that a trace nests the run under the caller and the body's spans under the run. Set with {@link
 * LockedRuns#observer(LockedRunObserver)}.
 */
public interface LockedRunObserver {

    /** Hears nothing of a call. */
    Call NONE_CALL = new Call() {
        @Override
        public void ended(LockedRunEvent.Outcome outcome, @Nullable Throwable error) {}

        @Override
        public void skipped(@Nullable Throwable error) {}
    };

    /** Hears nothing. */
    LockedRunObserver NONE = (name, declaredName) -> NONE_CALL;

    /**
     * A call starts, on the caller's thread, before its lock is asked for.
     *
     * @param name the lock's name, as this call evaluated it
     * @param declaredName the name as declared: a template such as {@code report-#{#region}}, or the name itself
     * @return what hears the call's end, once, on the same thread
     */
    Call started(String name, String declaredName);

    /**
     * A call whose work ends after it returned (a future, a {@code Mono}, a {@code Flux}, a suspend function) starts.
     * Its end may come on another thread, so nothing may stay open on the caller's (such as an observation's scope);
     * a call cancelled while its lock is asked for is {@link Call#skipped skipped}. Not heard by default.
     *
     * @param name the lock's name, as this call evaluated it
     * @param declaredName the name as declared
     * @return what hears the call's end, once, on any thread
     */
    default Call startedDeferred(String name, String declaredName) {
        return NONE_CALL;
    }

    /** One call of a {@link LockedRun} method: it hears one of its two ends, once. */
    interface Call {

        /**
         * The body ran and ended, as the {@link LockedRunEvent} of its end tells.
         *
         * @param outcome how it ended
         * @param error what the body threw, or null
         */
        void ended(LockedRunEvent.Outcome outcome, @Nullable Throwable error);

        /**
         * The body did not run: another holder had the lock, the acquire failed, the application was stopping, or a
         * deferred call was cancelled while its lock was asked for.
         *
         * @param error the acquire's failure, or null
         */
        void skipped(@Nullable Throwable error);
    }
}
