package io.locktable.spring.actuate;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LeadershipState;
import io.locktable.spring.LeadershipStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code locktable} health indicator: UP while the last request to the lock table succeeded and no leadership
 * of the leader runner is failing; DOWN with the error's message (never a stack trace) when the table cannot be
 * reached or does not exist, or when a leadership's last attempt failed. Its details name the table and the
 * leaderships this instance leads.
 *
 * <p>It learns of requests as a {@link LockTableListener} (the auto-configured lock table calls every listener
 * bean). When it has seen no request for {@value #PROBE_SECONDS} seconds (an instance that holds no lease and leads
 * nothing), a health check sends one {@code DescribeTable} ({@link LockTable#verify()}), whose answer it keeps for
 * as long. Thread-safe.
 */
public final class LockTableHealthIndicator implements HealthIndicator, LockTableListener, SmartInitializingSingleton {

    /** How long a request's outcome stands before a health check asks the table again. */
    static final int PROBE_SECONDS = 10;

    /** How long the last error of a leadership without a request seen counts as failing. */
    private static final Duration UNSEEN_ERROR_WINDOW = Duration.ofMinutes(1);

    private final Supplier<LockTable> locks;
    private final Supplier<LeaderRunner> runner;
    private final Duration probeInterval;
    private final Map<String, Instant> leaderSuccesses = new ConcurrentHashMap<>();
    private volatile Outcome lastRequest;
    private volatile Outcome lastProbe;
    private volatile LeaderRunner resolvedRunner;
    private volatile boolean resolved;

    /**
     * Creates the indicator. The suppliers are asked once the context's singletons exist, so the indicator may be
     * created before the lock table (it is one of the lock table's listeners).
     *
     * @param locks the lock table; a null answer reports UNKNOWN
     * @param runner the leader runner, or a supplier of null when there is none
     */
    public LockTableHealthIndicator(Supplier<LockTable> locks, Supplier<LeaderRunner> runner) {
        this(locks, runner, Duration.ofSeconds(PROBE_SECONDS));
    }

    LockTableHealthIndicator(Supplier<LockTable> locks, Supplier<LeaderRunner> runner, Duration probeInterval) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.probeInterval = Objects.requireNonNull(probeInterval, "probeInterval");
    }

    /**
     * Checks the lock table: from the last request seen, or with one {@code DescribeTable} when none was seen
     * lately.
     *
     * @return UP or DOWN, with the table, the names this instance leads and, when DOWN, the error
     */
    @Override
    public Health health() {
        LockTable table = locks.get();
        if (table == null) {
            return Health.unknown().withDetail("error", "no lock table").build();
        }
        LeaderRunner leaders = runner();
        Outcome outcome = latest();
        if (outcome == null || outcome.at().plus(probeInterval).isBefore(Instant.now())) {
            outcome = probe(table);
        }
        Map<String, String> failing = failing(leaders);
        Health.Builder health = outcome.succeeded() && failing.isEmpty() ? Health.up() : Health.down();
        health.withDetail("table", table.tableName()).withDetail("leading", leading(leaders));
        if (!outcome.succeeded()) {
            health.withDetail("error", outcome.error()).withDetail("errorAt", Iso.instant(outcome.at()));
        }
        if (!failing.isEmpty()) {
            health.withDetail("failingLeaderships", failing);
        }
        return health.build();
    }

    /** Resolves the leader runner once every singleton of the context exists; called by the context. */
    @Override
    public void afterSingletonsInstantiated() {
        runner();
    }

    /**
     * Notes a request that succeeded.
     *
     * @param name the lock it was for
     */
    @Override
    public void onRequestSucceeded(String name) {
        Instant now = Instant.now();
        lastRequest = new Outcome(now, null);
        LeaderRunner leaders = resolved ? resolvedRunner : null;
        if (leaders != null && leaders.status(name).isPresent()) {
            leaderSuccesses.put(name, now);
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
        lastRequest = new Outcome(Instant.now(), describe(error));
    }

    private LeaderRunner runner() {
        if (!resolved) {
            resolvedRunner = runner.get();
            resolved = true;
        }
        return resolvedRunner;
    }

    private Outcome latest() {
        Outcome request = lastRequest;
        Outcome probe = lastProbe;
        if (request == null) {
            return probe;
        }
        return probe == null || request.at().isAfter(probe.at()) ? request : probe;
    }

    private synchronized Outcome probe(LockTable table) {
        Outcome fresh = latest();
        if (fresh != null && !fresh.at().plus(probeInterval).isBefore(Instant.now())) {
            return fresh; // another health check probed meanwhile
        }
        Outcome outcome;
        try {
            table.verify();
            outcome = new Outcome(Instant.now(), null);
        } catch (RuntimeException e) {
            outcome = new Outcome(Instant.now(), describe(e));
        }
        lastProbe = outcome;
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

    /** The failing leaderships, with their last error. */
    private Map<String, String> failing(LeaderRunner leaders) {
        Instant now = Instant.now();
        Map<String, String> failing = new TreeMap<>();
        if (leaders == null) {
            return failing;
        }
        for (String name : leaders.names()) {
            Optional<LeadershipStatus> status = leaders.status(name);
            if (status.isEmpty() || status.get().lastErrorAt().isEmpty()) {
                continue;
            }
            if (isFailing(status.get(), leaderSuccesses.get(name), now)) {
                failing.put(name, status.get().lastError().orElse("failed"));
            }
        }
        return failing;
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
    private record Outcome(Instant at, String error) {
        boolean succeeded() {
            return error == null;
        }
    }

    @Override
    public String toString() {
        return "LockTableHealthIndicator[" + latest() + "]";
    }
}
