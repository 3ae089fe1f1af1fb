package io.locktable;

/**
 * Why a {@link Lease} ended, as {@link Lease#whenEnded()} reports it.
 *
 * <pre>{@code
 * lease.whenEnded().thenAccept(end -> {
 *     if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
 *         stopWork();
 *     }
 * });
 * }</pre>
 */
public enum LeaseEnd {
    /** The holder released it with {@link Lease#release()} or {@link Lease#close()}. */
    RELEASED,
    /** A renewal found the lock no longer held by this lease: another holder took it over, or it was removed. */
    LOST,
    /**
     * No renewal succeeded within the lease's duration on this process's monotonic clock (for example
     * DynamoDB could not be reached), or the acquire's answer came after a whole lease.
     */
    EXPIRED,
    /** The {@link LockTable} that holds it was closed, which releases every lease it holds. */
    CLOSED
}
