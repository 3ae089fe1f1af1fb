package io.locktable;

/**
 * How one call of {@link LockTable#tryAcquire} or {@link LockTable#acquire} (or their non-blocking forms) ended, as the
 * listener reports it.
 */
public enum AcquireOutcome {
    /** The lock was free or released, and this call took it. */
    ACQUIRED,
    /** The lock's holder had not renewed it for a whole lease, and this call took it over. */
    TAKEN_OVER,
    /** Another holder has the lock ({@code tryAcquire} returned empty). */
    BUSY,
    /** The lock stayed held for the whole {@code maxWait} of an {@code acquire}. */
    TIMEOUT,
    /** A request failed or the item at the lock's key is not a lock item. */
    ERROR,
    /**
     * The caller gave up waiting: the thread of an {@code acquire} was interrupted, or the future of an {@code
     * acquireAsync} was cancelled.
     */
    CANCELLED
}
