package io.locktable.integration;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.AbortedException;

/**
 * Runs a table request for a {@link java.util.concurrent.locks.Lock} call that an interrupt must not change ({@code
 * tryLock()}, {@code unlock()}): the SDK aborts a request made on an interrupted thread, or interrupted on its way,
 * with {@link AbortedException}, where {@code ReentrantLock.tryLock()} takes a free lock whatever the flag.
 *
 * <p>The flag is cleared around the request and set again after, rather than the request being made on another
 * thread: the call stays on the caller's thread, so the caller's context (what the table's listeners see current,
 * {@code Lease.current()} bound by the hold) is the caller's, it needs no thread or executor of its own, and it still
 * returns only once the table answered, as the caller expects. An interrupt that comes during the request aborts it:
 * it is kept for the caller too and the request made again (the table gives back a write that was applied but not
 * answered), so the call ends with the table's answer and the flag set.
 */
final class Uninterrupted {

    private Uninterrupted() {}

    /** {@return what the request answered}, made with the interrupt flag cleared; the flag is set again after. */
    static <T extends @Nullable Object> T call(Supplier<T> request) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return request.get();
                } catch (AbortedException e) {
                    if (!Thread.interrupted() && !causedByInterrupt(e)) {
                        throw e; // aborted for another reason: not ours to hide
                    }
                    interrupted = true; // an interrupt during the request: kept for the caller, the request made again
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs a request that answers nothing (a release), with the interrupt flag cleared; the flag is set again after. */
    static void run(Runnable request) {
        call(() -> {
            request.run();
            return null;
        });
    }

    /** Whether an abort was an interrupt, whose flag the SDK may have cleared: its cause is one. */
    static boolean causedByInterrupt(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof InterruptedException) { // the SDK's SdkInterruptedException is one
                return true;
            }
        }
        return false;
    }
}
