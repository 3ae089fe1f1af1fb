package io.locktable.spring.actuate;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LeadershipState;
import io.locktable.spring.LeadershipStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code locktable} health indicator: DOWN when requests to the lock table have been failing (the table cannot
 * be reached or does not exist) or a leadership of the leader runner has been failing for the down-after time
 * without a success in between; UP otherwise, with the error in the details while a failure is younger than that.
 * The details name the table and the leaderships this instance leads; errors are shown by their message, never a
 * stack trace.
 *
 * <p>Its state is what it hears as a {@link LockTableListener} (the auto-configured lock table calls every listener
 * bean): the outcome of the last request. Only when no request was heard for the probe interval (an instance that
 * holds no lease and leads nothing) does a health check ask the table itself, with one {@code DescribeTable} ({@link
 * LockTable#verify()}) on a short-lived thread {@code locktable-health}: the check waits for it at most the timeout,
 * concurrent checks share one request, and its outcome counts as the last request's. No check blocks a request
 * thread for longer than the timeout. Spring Boot's health endpoint caches responses on its own ({@code
 * management.endpoint.health.cache.time-to-live}).
 *
 * <p>Spring Boot's liveness group holds only {@code livenessState} by default, so this indicator stays out of it:
 * a lock table outage should not restart the application. Thread-safe.
 */
public final class LockTableHealthIndicator extends AbstractHealthIndicator
        implements LockTableListener, SmartInitializingSingleton {

    /** The default time a request's or a probe's outcome stands before a health check asks the table again. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(10);

    /** The default time a health check waits for the table's answer. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    /** The default time a failure must last, without a success, before the indicator reports DOWN. */
    public static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(30);

    /** How long the last error of a leadership without a request seen counts as failing. */
    private static final Duration UNSEEN_ERROR_WINDOW = Duration.ofMinutes(1);

    private final Supplier<LockTable> locks;
    private final Supplier<LeaderRunner> runner;
    private final Duration probeInterval;
    private final Duration timeout;
    private final Duration downAfter;
    private final Clock clock;
    private final Map<String, Instant> leaderSuccesses = new ConcurrentHashMap<>();
    private final Map<String, Instant> leaderFailingSince = new ConcurrentHashMap<>();
    private final AtomicReference<@Nullable Instant> tableFailingSince = new AtomicReference<>();
    /** The outcome of the last request heard, or of the last DescribeTable of a health check. */
    private final AtomicReference<@Nullable Outcome> last = new AtomicReference<>();

    private final AtomicReference<@Nullable CompletableFuture<Outcome>> probing = new AtomicReference<>();
    private volatile @Nullable LeaderRunner resolvedRunner;
    private volatile boolean resolved;

    /**
     * Creates the indicator with the default probe interval, timeout and down-after time. The suppliers are asked
     * once the context's singletons exist, so the indicator may be created before the lock table (it is one of the
     * lock table's listeners).
     *
     * @param locks the lock table; a null answer reports UNKNOWN
     * @param runner the leader runner, or a supplier of null when there is none
     */
    public LockTableHealthIndicator(Supplier<LockTable> locks, Supplier<LeaderRunner> runner) {
        this(locks, runner, DEFAULT_PROBE_INTERVAL, DEFAULT_TIMEOUT, DEFAULT_DOWN_AFTER);
    }

    /**
     * Creates the indicator.
     *
     * @param locks the lock table; a null answer reports UNKNOWN
     * @param runner the leader runner, or a supplier of null when there is none
     * @param probeInterval how long an outcome stands before a health check asks the table again
     * @param timeout how long a health check waits for the table's answer
     * @param downAfter how long a failure must last, without a success, before the indicator reports DOWN
     */
    public LockTableHealthIndicator(
            Supplier<LockTable> locks,
            Supplier<LeaderRunner> runner,
            Duration probeInterval,
            Duration timeout,
            Duration downAfter) {
        this(locks, runner, probeInterval, timeout, downAfter, Clock.systemUTC());
    }

    LockTableHealthIndicator(
            Supplier<LockTable> locks,
            Supplier<LeaderRunner> runner,
            Duration probeInterval,
            Duration timeout,
            Duration downAfter,
            Clock clock) {
        super(error -> "The lock table's health check failed: " + describe(error));
        this.locks = Objects.requireNonNull(locks, "locks");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.probeInterval = Objects.requireNonNull(probeInterval, "probeInterval");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.downAfter = Objects.requireNonNull(downAfter, "downAfter");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Checks the lock table: from the last request heard, or with one {@code DescribeTable} (waited for at most the
     * timeout) when none was heard for the probe interval. UP or DOWN, with the table, the names this instance leads
     * and, while failing, the error.
     *
     * @param health the builder of the health
     */
    @Override
    protected void doHealthCheck(Health.Builder health) {
        LockTable table = locks.get();
        if (table == null) {
            health.unknown().withDetail("error", "no lock table");
            return;
        }
        LeaderRunner leaders = runner();
        Outcome outcome = last.get();
        if (outcome == null || outcome.at().plus(probeInterval).isBefore(clock.instant())) {
            outcome = probe(table);
        }
        Instant now = clock.instant();
        Map<String, String> failing = new TreeMap<>();
        boolean leadershipDown = false;
        for (Map.Entry<String, Instant> failure : failing(leaders, now).entrySet()) {
            failing.put(failure.getKey(), describeLeadership(leaders, failure.getKey()));
            leadershipDown |= hasLasted(failure.getValue(), now);
        }
        Instant tableSince = tableFailingSince.get();
        boolean tableDown = !outcome.succeeded() && tableSince != null && hasLasted(tableSince, now);
        (tableDown || leadershipDown ? health.down() : health.up())
                .withDetail("table", table.tableName())
                .withDetail("leading", leading(leaders));
        if (!outcome.succeeded()) {
            health.withDetail("error", outcome.error()).withDetail("errorAt", Iso.instant(outcome.at()));
            if (tableSince != null) {
                health.withDetail("failingSince", Iso.instant(tableSince));
            }
        }
        if (!failing.isEmpty()) {
            health.withDetail("failingLeaderships", failing);
        }
    }

    /** Resolves the leader runner once every singleton of the context exists; called by the context. */
    @Override
    public void afterSingletonsInstantiated() {
        runner();
    }

    /**
     * Notes a request that succeeded: the table answers.
     *
     * @param name the lock it was for
     */
    @Override
    public void onRequestSucceeded(String name) {
        Instant now = clock.instant();
        record(new Outcome(now, null));
        LeaderRunner leaders = resolved ? resolvedRunner : null;
        if (leaders != null && leaders.status(name).isPresent()) {
            leaderSuccesses.put(name, now);
            leaderFailingSince.remove(name);
        }
    }

    /**
     * Notes a request that failed.
     *
     * @param name the lock it was for
     * @param error the error
     */
    @Override
    public void onRequestFailed(String name, Exception error) {
        record(new Outcome(clock.instant(), describe(error)));
    }

    /**
     * Notes when a leadership started failing.
     *
     * @param name the leadership
     * @param error the error
     * @param failuresInRow how many acquires failed in a row
     */
    @Override
    public void onLeadershipError(String name, Exception error, int failuresInRow) {
        leaderFailingSince.putIfAbsent(name, clock.instant());
    }

    private LeaderRunner runner() {
        if (!resolved) {
            resolvedRunner = runner.get();
            resolved = true;
        }
        return resolvedRunner;
    }

    private boolean hasLasted(Instant since, Instant now) {
        return !since.plus(downAfter).isAfter(now);
    }

    /**
     * Notes an outcome, unless a later one was noted already (a DescribeTable answered late): a success ends a
     * failure; the first failure after a success starts one.
     */
    private void record(Outcome outcome) {
        if (last.accumulateAndGet(
                        outcome, (before, now) -> before == null || !now.at().isBefore(before.at()) ? now : before)
                != outcome) {
            return;
        }
        if (outcome.succeeded()) {
            tableFailingSince.set(null);
        } else {
            tableFailingSince.compareAndSet(null, outcome.at());
        }
    }

    /** Asks the table on a thread of its own, one request at a time, and waits at most the timeout. */
    private Outcome probe(LockTable table) {
        CompletableFuture<Outcome> running = probing.get();
        if (running == null || running.isDone()) {
            CompletableFuture<Outcome> fresh = new CompletableFuture<>();
            if (probing.compareAndSet(running, fresh)) {
                Thread thread = new Thread(() -> fresh.complete(verify(table)), "locktable-health");
                thread.setDaemon(true);
                thread.start();
            }
            running = probing.get();
        }
        try {
            return running.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            Outcome late = new Outcome(clock.instant(), "DescribeTable did not answer within " + timeout);
            record(late);
            return late;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(clock.instant(), "the health check was interrupted");
        } catch (ExecutionException e) {
            return new Outcome(clock.instant(), describe(e.getCause()));
        }
    }

    private Outcome verify(LockTable table) {
        Outcome outcome;
        try {
            table.verify();
            outcome = new Outcome(clock.instant(), null);
        } catch (RuntimeException e) {
            outcome = new Outcome(clock.instant(), describe(e));
        }
        record(outcome);
        return outcome;
    }

    /**
     * A leadership fails when its last error came after its last successful request. With no request of it seen
     * (a lock table that does not call this listener), when it does not lead and its last error is recent.
     */
    private static boolean isFailing(LeadershipStatus status, Instant succeededAt, Instant now) {
        Instant failedAt = status.lastErrorAt().orElseThrow();
        if (succeededAt != null) {
            return !succeededAt.isAfter(failedAt);
        }
        return status.state() != LeadershipState.LEADING && failedAt.isAfter(now.minus(UNSEEN_ERROR_WINDOW));
    }

    /** The failing leaderships, with when they started failing (first seen, if no error event told earlier). */
    private Map<String, Instant> failing(LeaderRunner leaders, Instant now) {
        Map<String, Instant> failing = new TreeMap<>();
        if (leaders == null) {
            return failing;
        }
        for (String name : leaders.names()) {
            Optional<LeadershipStatus> status = leaders.status(name);
            if (status.isPresent()
                    && status.get().lastErrorAt().isPresent()
                    && isFailing(status.get(), leaderSuccesses.get(name), now)) {
                failing.put(name, leaderFailingSince.computeIfAbsent(name, n -> now));
            } else {
                leaderFailingSince.remove(name);
            }
        }
        return failing;
    }

    private static String describeLeadership(LeaderRunner leaders, String name) {
        return leaders.status(name).flatMap(LeadershipStatus::lastError).orElse("failed");
    }

    private static List<String> leading(LeaderRunner leaders) {
        return leaders == null
                ? List.of()
                : leaders.names().stream().filter(leaders::isLeader).toList();
    }

    /** The error's type and message, without its stack trace. */
    static String describe(Throwable error) {
        String message = error.getMessage();
        String type = error.getClass().getSimpleName();
        return message == null || message.isBlank() ? type : type + ": " + message;
    }

    /** What a request or a probe found: success when the error is null. */
    private record Outcome(Instant at, @Nullable String error) {
        boolean succeeded() {
            return error == null;
        }
    }

    @Override
    public String toString() {
        return "LockTableHealthIndicator[" + last.get() + "]";
    }
}
