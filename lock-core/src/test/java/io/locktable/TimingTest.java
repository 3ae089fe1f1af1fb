package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The rules that {@link Timing}'s ratios keep, checked for leases across the whole range. No engine. */
class TimingTest {

    static Stream<Duration> leases() {
        return Stream.of(
                Timing.MIN_LEASE,
                Duration.ofMillis(1_500),
                Duration.ofSeconds(2),
                Duration.ofSeconds(6),
                Duration.ofSeconds(30),
                Duration.ofMinutes(5),
                Duration.ofHours(1),
                Timing.MAX_LEASE);
    }

    @ParameterizedTest
    @MethodSource("leases")
    void aLeaseRenewsThreeTimesBeforeItsHolderGivesItUp(Duration lease) {
        long nanos = lease.toNanos();
        long period = Timing.renewalPeriod(nanos);
        long givesUp = nanos - Timing.expiryGuard(nanos);

        assertThat(3 * period).as("three renewals fall due within the lease").isLessThanOrEqualTo(nanos);
        assertThat(2 * period)
                .as("the third renewal is due before the holder gives up")
                .isLessThan(givesUp);
        assertThat(Timing.expiryGuard(nanos))
                .isPositive()
                .isLessThanOrEqualTo(Duration.ofMillis(100).toNanos());
    }

    @ParameterizedTest
    @MethodSource("leases")
    void aRenewalIsReportedLateLongBeforeTheLeaseIsAtRiskAndWorkersGrowBeforeThat(Duration lease) {
        long nanos = lease.toNanos();
        long period = Timing.renewalPeriod(nanos);
        long untilEndWhenDue = nanos - period;

        assertThat(Timing.lateRenewal(nanos)).isLessThan(period);
        assertThat(Timing.workerGrowth(untilEndWhenDue))
                .as("a worker is added before the renewal is reported late")
                .isLessThanOrEqualTo(Timing.lateRenewal(nanos));
    }

    @ParameterizedTest
    @MethodSource("leases")
    void aTaskThatKeepsNoLeaseQueuesBehindEveryLeasesTaskAndAddsNoWorker(Duration lease) {
        long now = -42; // System.nanoTime may be negative
        long unhurried = Timing.unhurriedDeadline(now);

        assertThat(unhurried - (now + lease.toNanos())).isPositive();
        assertThat(Timing.workerGrowth(unhurried - now))
                .isGreaterThan(Duration.ofHours(1).toNanos());
    }

    @ParameterizedTest
    @MethodSource("leases")
    void aFailedRenewalIsTriedAgainSeveralTimesBeforeTheLeaseEnds(Duration lease) {
        long left = lease.toNanos() - Timing.renewalPeriod(lease.toNanos());
        for (int i = 0; i < 100; i++) {
            long delay = Timing.renewalRetryDelay(left, ThreadLocalRandom.current());
            assertThat(delay)
                    .isBetween(
                            Duration.ofMillis(25).toNanos(),
                            Duration.ofSeconds(1).toNanos());
            assertThat(delay).isLessThan(left / 2);
        }
    }

    @ParameterizedTest
    @MethodSource("leases")
    void aWaitingAcquirePollsEveryThirdOfTheHoldersLeaseAtMostEveryTenSecondsAndNeverPastItsDue(Duration lease) {
        long nanos = lease.toNanos();
        for (int i = 0; i < 100; i++) {
            long pause = Timing.pollPause(nanos, nanos, ThreadLocalRandom.current());
            long interval = Math.min(nanos / 3, Duration.ofSeconds(10).toNanos());
            assertThat(pause).isBetween(interval, interval + interval / 10);
            assertThat(Timing.pollPause(nanos, 1_000, ThreadLocalRandom.current()))
                    .as("no later than just after the holder falls due")
                    .isLessThanOrEqualTo(1_000 + Duration.ofMillis(10).toNanos());
        }
        assertThat(Timing.pollPause(-1, -1, ThreadLocalRandom.current()))
                .as("holder unknown: a short pause")
                .isBetween(
                        Duration.ofMillis(50).toNanos(), Duration.ofMillis(100).toNanos());
    }

    @Test
    void eachBoundIsExactAtItsEdges() {
        long twoLongestLeases = 2 * Timing.MAX_LEASE.toNanos();
        assertThat(Timing.isWaitDeadline(-1)).as("no wait").isFalse();
        assertThat(Timing.isWaitDeadline(0)).as("a wait of nothing").isTrue();
        assertThat(Timing.isWaitDeadline(twoLongestLeases - 1)).isTrue();
        assertThat(Timing.isWaitDeadline(twoLongestLeases))
                .as("as unhurried as no wait")
                .isFalse();
        assertThat(Timing.isWaitDeadline(Long.MAX_VALUE)).isFalse();

        long start = -1_000; // System.nanoTime may be negative
        long now = start + 40;
        assertThat(Timing.attemptDeadline(start, 300, now))
                .as("the end of the wait")
                .isEqualTo(start + 300);
        assertThat(Timing.attemptDeadline(start, -1, now)).isEqualTo(Timing.unhurriedDeadline(now));
        assertThat(Timing.attemptDeadline(start, twoLongestLeases, now)).isEqualTo(now + twoLongestLeases);

        assertThat(Timing.deadlineNanos(Duration.ofSeconds(5))).isEqualTo(5_000_000_000L);
        assertThat(Timing.deadlineNanos(java.time.temporal.ChronoUnit.FOREVER.getDuration()))
                .isEqualTo(Long.MAX_VALUE / 2);

        assertThat(Timing.expiryGuard(Duration.ofSeconds(1).toNanos()))
                .as("a twentieth")
                .isEqualTo(Duration.ofMillis(50).toNanos());
        assertThat(Timing.expiryGuard(Duration.ofSeconds(20).toNanos()))
                .as("at most 100 ms")
                .isEqualTo(Duration.ofMillis(100).toNanos());

        long left = Duration.ofSeconds(2).toNanos(); // a fifth of it: 400 ms, half of it random
        long shortestRetry = Long.MAX_VALUE;
        long longestRetry = 0;
        for (int i = 0; i < 1_000; i++) {
            long retry = Timing.renewalRetryDelay(left, ThreadLocalRandom.current());
            shortestRetry = Math.min(shortestRetry, retry);
            longestRetry = Math.max(longestRetry, retry);
        }
        assertThat(shortestRetry).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
        assertThat(longestRetry)
                .isLessThanOrEqualTo(Duration.ofMillis(400).toNanos())
                .isGreaterThan(Duration.ofMillis(300).toNanos());

        long lease = Duration.ofSeconds(30).toNanos();
        long untilDue = Duration.ofSeconds(2).toNanos();
        for (int i = 0; i < 1_000; i++) {
            assertThat(Timing.pollPause(lease, untilDue, ThreadLocalRandom.current()))
                    .as("just after the holder falls due, never before")
                    .isBetween(untilDue, untilDue + Duration.ofMillis(10).toNanos());
            assertThat(Timing.pollPause(lease, -untilDue, ThreadLocalRandom.current()))
                    .as("due already: at once")
                    .isEqualTo(1);
        }
    }

    @ParameterizedTest
    @MethodSource("leases")
    void noRequestOutlastsTheLeaseItServesNorTheCallersWait(Duration lease) {
        long unbounded = Long.MAX_VALUE;
        assertThat(Timing.renewalTimeout(lease.toNanos())).isLessThanOrEqualTo(lease);
        assertThat(Timing.readTimeout(lease, unbounded)).isLessThanOrEqualTo(lease);
        assertThat(Timing.releaseTimeout(lease)).isLessThanOrEqualTo(lease);
        assertThat(Timing.acquireTimeout(lease, unbounded))
                .as("a late answer still tells of a lease that has ended")
                .isGreaterThanOrEqualTo(Timing.LONGEST.compareTo(lease) < 0 ? Timing.LONGEST : lease)
                .isLessThanOrEqualTo(Timing.LONGEST);
        assertThat(Timing.acquireTimeout(lease, Duration.ofMillis(300).toNanos()))
                .isEqualTo(Duration.ofMillis(300));
        assertThat(Timing.leaderRetry(lease)).isEqualTo(Timing.renewalPeriod(lease.toNanos()));
    }

    @ParameterizedTest
    @MethodSource("leases")
    void noRequestIsGivenLessThanTheShortestTimeoutEvenWithNothingLeft(Duration lease) {
        for (long left : new long[] {Long.MIN_VALUE, -1, 0, 1, 1_000_000, Timing.SHORTEST.toNanos() - 1}) {
            assertThat(Timing.acquireTimeout(lease, left)).isEqualTo(Timing.SHORTEST);
            assertThat(Timing.readTimeout(lease, left)).isEqualTo(Timing.SHORTEST);
            assertThat(Timing.renewalTimeout(left)).isEqualTo(Timing.SHORTEST);
            assertThat(Timing.giveBackTimeout(left)).isEqualTo(Timing.SHORTEST);
            assertThat(Timing.closingReleaseTimeout(lease, left)).isEqualTo(Timing.SHORTEST);
        }
        long justAbove = Timing.SHORTEST.toNanos() + 1;
        assertThat(Timing.readTimeout(lease, justAbove))
                .as("above the shortest, the wait bounds it, rounded up to whole milliseconds")
                .isEqualTo(Timing.SHORTEST.plusMillis(1));
    }

    @ParameterizedTest
    @MethodSource("leases")
    void theLeaseRangeIsOneRule(Duration lease) {
        assertThat(Timing.isLease(lease)).isTrue();
        assertThat(LockTable.isLeaseDuration(lease)).isTrue();
        assertThat(Timing.isLease(lease.minusNanos(1))).isEqualTo(!lease.equals(Timing.MIN_LEASE));
        assertThat(Timing.isLease(lease.plusNanos(1))).isEqualTo(!lease.equals(Timing.MAX_LEASE));
    }

    @Test
    void requestTimeoutsServeTheLeaseAndStayShort() {
        long unbounded = Long.MAX_VALUE;
        assertThat(Timing.acquireTimeout(Duration.ofSeconds(2), unbounded)).isEqualTo(Duration.ofSeconds(4));
        assertThat(Timing.acquireTimeout(Duration.ofSeconds(45), unbounded)).isEqualTo(Duration.ofMinutes(1));
        assertThat(Timing.acquireTimeout(Duration.ofDays(1), unbounded)).isEqualTo(Duration.ofMinutes(1));
        assertThat(Timing.renewalTimeout(Duration.ofMillis(700).toNanos())).isEqualTo(Duration.ofMillis(700));
        assertThat(Timing.renewalTimeout(Duration.ofHours(16).toNanos())).isEqualTo(Duration.ofSeconds(30));
        // never past the caller's wait, unless that is below the shortest a request may be given
        assertThat(Timing.acquireTimeout(
                        Duration.ofSeconds(30), Duration.ofSeconds(1).toNanos()))
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(Timing.readTimeout(Duration.ofSeconds(30), -5)).isEqualTo(Duration.ofMillis(250));
        assertThat(Timing.giveBackTimeout(Duration.ofDays(1).toNanos())).isEqualTo(Duration.ofSeconds(5));
    }
}
