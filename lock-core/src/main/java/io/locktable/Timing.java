package io.locktable;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Every ratio and bound of the protocol, each with the rule it keeps: nothing else in lock-core writes a {@code / 3}
 * or a guard. Three groups: the lease (its range, when it renews, when it is given up locally), the waits (polls,
 * retries), and how long each request may take, retries of the SDK included (a request never outlasts the lease it
 * serves, nor the caller's wait, nor the minute after which the SDK's timeout tasks would pile up).
 *
 * <p>The safety of the whole protocol rests on two of them: the holder's lease ends at the <em>send</em> time of its
 * last successful renewal plus the lease, while a contender takes over only after watching one record version for a
 * whole lease from the <em>answer</em> that showed it; and the holder tries {@link #RENEWALS_PER_LEASE} times per
 * lease, so one lost or slow renewal never loses a lease.
 */
final class Timing {

    // ---- the lease

    /** The shortest lease: below a second a lease cannot outlast the round trips and retries of its renewals. */
    static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** The longest lease, a day. */
    static final Duration MAX_LEASE = Duration.ofDays(1);
    /** A lease renews this many times within its duration: two renewals in a row may fail and it is still held. */
    static final int RENEWALS_PER_LEASE = 3;
    /** The longest guard before a lease's end at which its holder gives it up, for a timer thread that runs late. */
    private static final long MAX_EXPIRY_GUARD_NANOS = Duration.ofMillis(100).toNanos();
    /** A failed renewal is tried again no sooner than this, and no later than {@link #MAX_RENEWAL_RETRY_NANOS}. */
    private static final long MIN_RENEWAL_RETRY_NANOS = Duration.ofMillis(50).toNanos();

    private static final long MAX_RENEWAL_RETRY_NANOS = Duration.ofSeconds(1).toNanos();
    /** A renewal or a queued request is late past this, whatever its period: below it is the noise of a busy host. */
    private static final long MIN_LATE_NANOS = Duration.ofMillis(50).toNanos();

    // ---- the waits

    /** A waiting acquire polls at most this far apart, whatever the holder's lease. */
    static final Duration MAX_POLL = Duration.ofSeconds(10);
    /** The pause after a race whose winner is not known yet (the item moved on under a racing contender). */
    private static final long RACE_RETRY_NANOS = Duration.ofMillis(50).toNanos();
    /** The first retry of a give-back that failed, doubled each time up to {@link #LAST_GIVE_BACK_RETRY_NANOS}. */
    static final long FIRST_GIVE_BACK_RETRY_NANOS = Duration.ofMillis(100).toNanos();

    static final long LAST_GIVE_BACK_RETRY_NANOS = Duration.ofSeconds(5).toNanos();

    /**
     * How long after it was sent an acquire the client gave up on (I/O, a timeout, an interrupt) may still reach the
     * table and be applied. A request abandoned by its client is served within moments if at all; this bounds the
     * give-back's second looks, which otherwise, for a lease of a day, would go on all day.
     */
    private static final long LATE_WRITE_WINDOW_NANOS = Duration.ofSeconds(10).toNanos();

    // ---- the threads

    /** Worker threads at once while renewals start on time: 6 round trips of 5 ms renew 1,200 leases a second. */
    static final int DEFAULT_WORKERS = 6;
    /** The most worker threads a table runs, however late its renewals: beyond this, leases must be longer. */
    static final int MAX_WORKERS = 64;
    /** The timer, the event thread and the base workers go away after this long without work. */
    static final Duration IDLE = Duration.ofSeconds(30);
    /** A worker beyond the base goes away after this long without work. */
    static final Duration EXTRA_KEEP_ALIVE = Duration.ofSeconds(5);
    /** Unanswered renewals of a lease after which one read settles which of them, if any, was applied. */
    static final int MAX_UNANSWERED = 16;

    // ---- the requests

    /** The longest any request waits: the SDK keeps a timeout task per call until it comes due. */
    static final Duration LONGEST = Duration.ofMinutes(1);
    /**
     * The shortest any request waits, even when the lease or the caller's wait has less left (an answer after the
     * lease's end, or after the wait, counts for nothing, so a longer wait is safe). Below it the SDK's timeout of a
     * synchronous call can fire before the call's connection can be aborted, and the call then blocks on its socket
     * until the HTTP client's read timeout, 30 s by default: of 3,000 {@code GetItem}s on dynalite with timeouts of 1
     * to 150 ms, one with a 2 ms timeout took 30,032 ms, and a waiting contender missed a release for 28 s.
     */
    static final Duration SHORTEST = Duration.ofMillis(250);
    /** A renewal attempt waits at most this; a later attempt retries within the lease. */
    static final Duration RENEWAL_ATTEMPT = Duration.ofSeconds(30);
    /** A read waits at most this, so a waiting acquire polls again rather than hang. */
    static final Duration READ = MAX_POLL;
    /** A release, and one attempt to give back an acquire whose answer never came. */
    static final Duration RELEASE = Duration.ofSeconds(5);
    /** {@link LockTable#close()} releases every lease within this, in parallel. */
    static final Duration CLOSE = Duration.ofSeconds(5);
    /** How long past {@link #CLOSE} a close waits for the releases' answers before it reports those missing. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(1);

    private Timing() {}

    /**
     * Tells whether a duration is one a lease may have: from {@link #MIN_LEASE} to {@link #MAX_LEASE}.
     *
     * @param lease the duration, may be null
     * @return true if it is in the range
     */
    static boolean isLease(@Nullable Duration lease) {
        return lease != null && lease.compareTo(MIN_LEASE) >= 0 && lease.compareTo(MAX_LEASE) <= 0;
    }

    /** A renewal is due this long after the send time of the acquire or the last renewal that succeeded. */
    static long renewalPeriod(long leaseNanos) {
        return leaseNanos / RENEWALS_PER_LEASE;
    }

    /**
     * The holder gives its lease up this long before its end (a twentieth of it, at most 100 ms), so that a timer
     * thread that runs a little late still ends it before any contender can take over.
     */
    static long expiryGuard(long leaseNanos) {
        return Math.min(leaseNanos / 20, MAX_EXPIRY_GUARD_NANOS);
    }

    /**
     * When a failed renewal is tried again: a fifth of what is left of the lease, from 50 ms to 1 s, half of it
     * random, so that a lease sees several attempts before its end and many leases do not retry in step.
     */
    static long renewalRetryDelay(long leaseLeftNanos, ThreadLocalRandom random) {
        long delay = Math.min(MAX_RENEWAL_RETRY_NANOS, Math.max(MIN_RENEWAL_RETRY_NANOS, leaseLeftNanos / 5));
        return delay / 2 + random.nextLong(delay / 2 + 1);
    }

    /**
     * A renewal that started this long after it was due is late (a tenth of its period, at least 50 ms): reported
     * long before the lease is at risk, which is only after a whole lease, three periods, without a renewal.
     */
    static long lateRenewal(long leaseNanos) {
        return Math.max(MIN_LATE_NANOS, renewalPeriod(leaseNanos) / 10);
    }

    /**
     * A request queued for a worker waits at most this long before one more worker is started for it: a fortieth of
     * the time to its deadline (for a renewal, about a twentieth of its period, half of what {@link #lateRenewal}
     * reports), so the workers grow before anyone is warned.
     */
    static long workerGrowth(long untilDeadlineNanos) {
        return Math.max(MIN_LATE_NANOS, untilDeadlineNanos / 40);
    }

    /**
     * The deadline of a queued task that keeps no lease (an attempt of a non-blocking acquire): two of the longest
     * leases away, so it is taken after every task that keeps one (a renewal's or a release's deadline is at most a
     * lease away), and its {@link #workerGrowth} of over an hour never adds a worker: a burst of waiters' polls waits
     * for the base workers instead of raising the bound that renewals need.
     */
    static long unhurriedDeadline(long nowNanos) {
        return nowNanos + 2 * MAX_LEASE.toNanos();
    }

    /**
     * Whether a wait has a deadline worth keeping: shorter than the {@link #unhurriedDeadline} span. A longer one (a
     * wait "as long as it takes" included) is as unhurried as an attempt without a wait.
     */
    static boolean isWaitDeadline(long maxWaitNanos) {
        return maxWaitNanos >= 0 && maxWaitNanos < 2 * MAX_LEASE.toNanos();
    }

    /**
     * The deadline of a queued attempt of a non-blocking acquire that waits at most {@code maxWaitNanos} from {@code
     * startNanos}: the end of its wait, so the earliest-deadline-first workers serve a short wait before the tasks due
     * after it, and add a worker when it has queued a fortieth of its wait ({@link #workerGrowth}); a wait with no
     * such deadline is {@link #unhurriedDeadline}.
     */
    static long attemptDeadline(long startNanos, long maxWaitNanos, long nowNanos) {
        return isWaitDeadline(maxWaitNanos) ? startNanos + maxWaitNanos : unhurriedDeadline(nowNanos);
    }

    /** How long a leader waits after an acquire failed with a transient error: a third of its lease. */
    static long leaderRetry(Duration lease) {
        return renewalPeriod(lease.toNanos());
    }

    /**
     * How long a waiting acquire sleeps before its next poll (step 4): a third of the holder's lease, at most {@link
     * #MAX_POLL}, plus up to a tenth of jitter so contenders do not move in step; no later than just after the holder
     * falls due for a takeover; a short random pause when the holder is not known.
     *
     * @param holderLeaseNanos the holder's lease, or negative when unknown
     * @param untilDueNanos how long until the holder falls due for a takeover
     */
    static long pollPause(long holderLeaseNanos, long untilDueNanos, ThreadLocalRandom random) {
        if (holderLeaseNanos < 0) {
            return raceRetry(random);
        }
        long interval = Math.min(renewalPeriod(holderLeaseNanos), MAX_POLL.toNanos());
        long jittered = interval + random.nextLong(interval / 10 + 1);
        long untilDue = untilDueNanos + random.nextLong(RACE_RETRY_NANOS / 5 + 1);
        return Math.max(1, Math.min(jittered, untilDue));
    }

    /** The pause after a race or a request without an answer: 50 to 100 ms. */
    static long raceRetry(ThreadLocalRandom random) {
        return RACE_RETRY_NANOS + random.nextLong(RACE_RETRY_NANOS);
    }

    /**
     * An acquire may wait for its answer a little past a whole lease (at most one more lease, at most 30 s more),
     * so a late answer still tells the caller with a lease that has ended instead of leaving the outcome unknown;
     * and not past the caller's wait, unless that is shorter than {@link #SHORTEST}.
     */
    static Duration acquireTimeout(Duration lease, long waitLeftNanos) {
        Duration extra = shorter(lease, RENEWAL_ATTEMPT);
        return withinWait(shorter(lease.plus(extra), LONGEST), waitLeftNanos);
    }

    /** A read of the lock item: at most a lease, at most {@link #READ}, within the caller's wait as an acquire. */
    static Duration readTimeout(Duration lease, long waitLeftNanos) {
        return withinWait(shorter(lease, READ), waitLeftNanos);
    }

    /** A renewal waits at most what is left of its lease (at least {@link #SHORTEST}), at most {@link #RENEWAL_ATTEMPT}. */
    static Duration renewalTimeout(long leaseLeftNanos) {
        return upTo(leaseLeftNanos, RENEWAL_ATTEMPT);
    }

    /** A release: at most {@link #RELEASE}, at most the lease. */
    static Duration releaseTimeout(Duration lease) {
        return shorter(lease, RELEASE);
    }

    /**
     * Until when an unanswered acquire the client gave up on is looked for again after a give-back found nothing: the
     * late-write window after it was sent, and never past the lease it would take.
     */
    static long lateWriteChecksEnd(long sentNanos, Duration lease) {
        return sentNanos + Math.min(LATE_WRITE_WINDOW_NANOS, lease.toNanos());
    }

    /** One attempt to give back an acquire: at most {@link #RELEASE}, at most what is left of that lease. */
    static Duration giveBackTimeout(long leaseLeftNanos) {
        return upTo(leaseLeftNanos, RELEASE);
    }

    /** One release during {@link LockTable#close()}: at most {@link #RELEASE}, never past the close's bound. */
    static Duration closingReleaseTimeout(Duration lease, long closeLeftNanos) {
        return withinWait(releaseTimeout(lease), closeLeftNanos);
    }

    private static Duration upTo(long leftNanos, Duration cap) {
        return withinWait(cap, leftNanos);
    }

    private static Duration withinWait(Duration timeout, long waitLeftNanos) {
        if (timeout.toNanos() <= waitLeftNanos) {
            return timeout;
        }
        if (waitLeftNanos <= SHORTEST.toNanos()) {
            return shorter(SHORTEST, timeout);
        }
        // whole milliseconds, rounded up, as the SDK counts them: a request cut short by the wait ends no sooner
        // than the wait does
        return Duration.ofMillis((waitLeftNanos + 999_999) / 1_000_000);
    }

    /** A duration in nanoseconds, {@code Long.MAX_VALUE} for one too long to count (a wait "forever"). */
    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * A delay until a deadline on the monotonic clock, at most half its range (about 146 years, "forever" for a
     * process): the deadline {@code now + delay} and its difference from another such deadline then never overflow,
     * where a saturated {@code Long.MAX_VALUE} would wrap and compare as already past.
     */
    static long deadlineNanos(Duration delay) {
        return Math.min(saturatedNanos(delay), Long.MAX_VALUE / 2);
    }

    private static Duration shorter(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
