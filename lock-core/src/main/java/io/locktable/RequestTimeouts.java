package io.locktable;

import java.time.Duration;

/**
 * How long each request of the protocol may take, retries of the SDK included: one place for the rule that a
 * request never outlasts the lease it serves, nor the caller's wait, nor the minute after which the SDK's timeout
 * tasks would pile up.
 */
final class RequestTimeouts {

    /** The longest any request waits: the SDK keeps a timeout task per call until it comes due. */
    static final Duration LONGEST = Duration.ofMinutes(1);
    /** A renewal attempt waits at most this; a later attempt retries within the lease. */
    static final Duration RENEWAL_ATTEMPT = Duration.ofSeconds(30);
    /** A read waits at most this, so a waiting acquire polls again rather than hang. */
    static final Duration READ = Duration.ofSeconds(10);
    /** A release, and one attempt to give back an acquire whose answer never came. */
    static final Duration RELEASE = Duration.ofSeconds(5);
    /** {@link LockTable#close()} releases every lease within this, in parallel. */
    static final Duration CLOSE = Duration.ofSeconds(5);

    private RequestTimeouts() {}

    /**
     * An acquire may wait for its answer a little past a whole lease (at most one more lease, at most 30 s more),
     * so a late answer still tells the caller with a lease that has ended instead of leaving the outcome unknown;
     * and never past the caller's wait.
     */
    static Duration acquire(Duration lease, long waitLeftNanos) {
        Duration extra = shorter(lease, RENEWAL_ATTEMPT);
        return withinWait(shorter(lease.plus(extra), LONGEST), waitLeftNanos);
    }

    /** A read of the lock item: at most a lease, at most {@link #READ}, never past the caller's wait. */
    static Duration read(Duration lease, long waitLeftNanos) {
        return withinWait(shorter(lease, READ), waitLeftNanos);
    }

    /** A renewal waits at most what is left of its lease, and at most {@link #RENEWAL_ATTEMPT}. */
    static Duration renewal(long leaseLeftNanos) {
        return upTo(leaseLeftNanos, RENEWAL_ATTEMPT);
    }

    /** A release: at most {@link #RELEASE}, at most the lease. */
    static Duration release(Duration lease) {
        return shorter(lease, RELEASE);
    }

    /** One attempt to give back an acquire: at most {@link #RELEASE}, at most what is left of that lease. */
    static Duration giveBack(long leaseLeftNanos) {
        return upTo(leaseLeftNanos, RELEASE);
    }

    /** One release during {@link LockTable#close()}: at most {@link #RELEASE}, never past the close's bound. */
    static Duration closingRelease(Duration lease, long closeLeftNanos) {
        return withinWait(release(lease), closeLeftNanos);
    }

    private static Duration upTo(long leftNanos, Duration cap) {
        return shorter(Duration.ofNanos(Math.max(1_000_000, leftNanos)), cap);
    }

    private static Duration withinWait(Duration timeout, long waitLeftNanos) {
        if (timeout.toNanos() <= waitLeftNanos) {
            return timeout;
        }
        // whole milliseconds, rounded up, as the SDK counts them: a request cut short by the wait ends no sooner
        // than the wait does; and one millisecond at least, since the SDK refuses a zero timeout
        return Duration.ofMillis(Math.max(1, (waitLeftNanos + 999_999) / 1_000_000));
    }

    private static Duration shorter(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
