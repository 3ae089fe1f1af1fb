package io.locktable.spring.actuate;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderRunner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code locktable} health indicator, from what the lock table's listener heard; it sends no request and starts
 * no thread (Spring Boot caches health responses with {@code management.endpoint.health.cache.time-to-live}).
 *
 * <p>The rule: a <em>failure</em> is a request that failed, a renewal that failed or a leadership's acquire that
 * failed; an <em>answer</em> is a request that succeeded, a lease acquired or renewed, or a lock found held. The
 * indicator is DOWN once failures have kept coming for the down-after time without an answer in between (from the
 * first to the latest, so one failure followed by silence stays UP); otherwise UP, with the latest error, when it
 * happened and when the failures began while any failure is unanswered. A lease lost or expired is shown ({@code
 * lastLeaseLost}) but is no failure by itself: another holder or a paused process may explain it. An instance that
 * heard nothing yet is UP: the table was checked at startup. The details also name the table, the leaderships this
 * instance leads and the leaderships whose last acquire failed; errors show their type and message, never a stack
 * trace. Spring Boot's liveness group leaves it out, so an outage of the table restarts nothing. Thread-safe.
 */
public final class LockTableHealthIndicator extends AbstractHealthIndicator implements LockTableListener {

    /** The default time failures must keep coming, without an answer, before the indicator reports DOWN. */
    public static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(30);

    private final Supplier<LockTable> locks;
    private final Supplier<LeaderRunner> runner;
    private final Duration downAfter;
    private final Clock clock;
    private final Map<String, String> failingLeaderships = new ConcurrentHashMap<>();
    // the listener's methods are called one at a time, so plain volatile writes suffice
    private volatile @Nullable Failure failure;
    private volatile @Nullable String lastLeaseLost;

    /**
     * Creates the indicator with the default down-after time. The suppliers are asked at each health check, so the
     * indicator may be created before the lock table it listens to.
     *
     * @param locks the lock table; a null answer reports UNKNOWN
     * @param runner the leader runner, or a supplier of null when there is none
     */
    public LockTableHealthIndicator(Supplier<LockTable> locks, Supplier<LeaderRunner> runner) {
        this(locks, runner, DEFAULT_DOWN_AFTER);
    }

    /**
     * Creates the indicator.
     *
     * @param locks the lock table; a null answer reports UNKNOWN
     * @param runner the leader runner, or a supplier of null when there is none
     * @param downAfter how long failures must keep coming, without an answer, before it reports DOWN
     */
    public LockTableHealthIndicator(Supplier<LockTable> locks, Supplier<LeaderRunner> runner, Duration downAfter) {
        this(locks, runner, downAfter, Clock.systemUTC());
    }

    LockTableHealthIndicator(
            Supplier<LockTable> locks, Supplier<LeaderRunner> runner, Duration downAfter, Clock clock) {
        super(error -> "The lock table's health check failed: " + describe(error));
        this.locks = Objects.requireNonNull(locks, "locks");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.downAfter = Objects.requireNonNull(downAfter, "downAfter");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Reports the state heard so far, by the rule of the class. */
    @Override
    protected void doHealthCheck(Health.Builder health) {
        LockTable table = locks.get();
        if (table == null) {
            health.unknown().withDetail("error", "no lock table");
            return;
        }
        LeaderRunner leaders = runner.get();
        Failure now = failure;
        (now != null && !now.since().plus(downAfter).isAfter(now.at()) ? health.down() : health.up())
                .withDetail("table", table.tableName())
                .withDetail(
                        "leading",
                        leaders == null
                                ? List.of()
                                : leaders.names().stream()
                                        .filter(leaders::isLeader)
                                        .toList());
        if (now != null) {
            health.withDetail("error", now.error())
                    .withDetail("errorAt", LocksEndpoint.iso(now.at()))
                    .withDetail("failingSince", LocksEndpoint.iso(now.since()));
        }
        if (!failingLeaderships.isEmpty()) {
            health.withDetail("failingLeaderships", new TreeMap<>(failingLeaderships));
        }
        String lost = lastLeaseLost;
        if (lost != null) {
            health.withDetail("lastLeaseLost", lost);
        }
    }

    private void failed(Throwable error) {
        Failure before = failure;
        Instant at = clock.instant();
        failure = new Failure(before == null ? at : before.since(), at, describe(error));
    }

    private void answered(String name) {
        failure = null;
        failingLeaderships.remove(name);
    }

    @Override
    public void onRequestFailed(String name, Exception error) {
        failed(error);
    }

    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        failed(error);
    }

    @Override
    public void onLeadershipError(String name, Exception error, int failuresInRow) {
        failed(error);
        failingLeaderships.put(name, describe(error));
    }

    @Override
    public void onRequestSucceeded(String name) {
        answered(name);
    }

    @Override
    public void onAcquired(Lease lease, boolean tookOver) {
        answered(lease.name());
    }

    @Override
    public void onRenewed(Lease lease) {
        answered(lease.name());
    }

    @Override
    public void onBusy(String name, LockRecord holder) {
        answered(name);
    }

    @Override
    public void onLost(Lease lease, LeaseEnd reason) {
        lastLeaseLost = lease.name() + " " + reason.name().toLowerCase(Locale.ROOT) + " at "
                + LocksEndpoint.iso(clock.instant());
    }

    /** The error's type and message, without its stack trace. */
    static String describe(Throwable error) {
        String message = error.getMessage();
        String type = error.getClass().getSimpleName();
        return message == null || message.isBlank() ? type : type + ": " + message;
    }

    /** Failures without an answer in between: the first's time, the latest's time and error. */
    private record Failure(Instant since, Instant at, String error) {}
}
