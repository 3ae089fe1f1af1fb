package io.locktable.spring.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.locktable.Lease;
import io.locktable.LockItemConflictException;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.spring.CurrentLeader;
import io.locktable.spring.LastLockedRun;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LeadershipState;
import io.locktable.spring.LeadershipStatus;
import io.locktable.spring.LockedRunStatus;
import io.locktable.spring.LockedRuns;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code locks} actuator endpoint: who holds what. {@code GET /actuator/locks} shows this instance's leases,
 * leaderships and {@code @LockedRun} runs; {@code GET /actuator/locks/{name}} one lock's item as stored beside this
 * instance's lease of it; {@code POST /actuator/locks/{name}} steps down from that leadership, and exists only with
 * {@code management.endpoint.locks.access=unrestricted}. Durations and instants (UTC) are ISO-8601, to the
 * millisecond; absent values are {@code null}.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public final class LocksEndpoint {

    /** How long a step-down request waits for the lease to be released before it answers 202 Accepted. */
    public static final Duration STEP_DOWN_WAIT = Duration.ofSeconds(2);

    private static final int STATUS_ACCEPTED = 202;
    private static final int STATUS_CONFLICT = 409;

    private final LockTable locks;
    private final LeaderRunner runner;
    private final LockedRuns runs;

    /**
     * Creates the endpoint, without runs.
     *
     * @param locks the lock table to show
     * @param runner the leader runner whose leaderships to show, or null when there is none
     */
    public LocksEndpoint(LockTable locks, LeaderRunner runner) {
        this(locks, runner, null);
    }

    /**
     * Creates the endpoint.
     *
     * @param locks the lock table to show
     * @param runner the leader runner whose leaderships to show, or null when there is none
     * @param runs the {@code @LockedRun} runs to show, or null when there are none
     */
    public LocksEndpoint(LockTable locks, LeaderRunner runner, LockedRuns runs) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.runner = runner;
        this.runs = runs;
    }

    /** {@return what this instance holds, leads and runs; reads nothing from DynamoDB} */
    @ReadOperation
    public LocksDescriptor locks() {
        List<LeaseDescriptor> leases = locks.heldLeases().stream()
                .sorted(Comparator.comparing(Lease::name).thenComparingLong(Lease::fencingToken))
                .map(this::describe)
                .toList();
        List<LeaderDescriptor> leaders = runner == null
                ? List.of()
                : runner.names().stream()
                        .map(this::describeLeadership)
                        .flatMap(Optional::stream)
                        .toList();
        List<RunDescriptor> running = runs == null
                ? List.of()
                : runs.running().stream().map(RunDescriptor::of).toList();
        List<LastRunDescriptor> lastRuns = runs == null
                ? List.of()
                : runs.lastRuns().stream().map(LastRunDescriptor::of).toList();
        return new LocksDescriptor(
                locks.tableName(),
                locks.partitionKey(),
                locks.sortKey().orElse(null),
                locks.owner(),
                locks.options().holder().orElse(null),
                leases,
                leaders,
                running,
                lastRuns);
    }

    /**
     * One lock: its item as stored (one strongly consistent {@code GetItem}) and this instance's lease of it.
     *
     * @param name the name of the lock
     * @return the lock; 404 when the lock has no item, 409 when the item at its key is not a lock item
     */
    @ReadOperation
    public WebEndpointResponse<LockDescriptor> lock(@Selector String name) {
        Optional<LockRecord> stored;
        try {
            stored = locks.read(name);
        } catch (LockItemConflictException e) {
            return new WebEndpointResponse<>(STATUS_CONFLICT);
        }
        if (stored.isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        LeaseDescriptor local = locks.heldLeases().stream()
                .filter(lease -> lease.name().equals(name))
                .max(Comparator.comparingLong(Lease::fencingToken))
                .map(this::describe)
                .orElse(null);
        return new WebEndpointResponse<>(new LockDescriptor(name, StoredDescriptor.of(stored.get()), local));
    }

    /**
     * Steps down from a leadership ({@link LeaderRunner#yieldAsync(String)}) and waits for the release at most {@link
     * #STEP_DOWN_WAIT}; an interrupted request answers at once, with its interrupt kept.
     *
     * @param name the name of the leadership
     * @return the leadership's status: 200 once the lease is released, 202 while calls in flight still hold it; a
     *     404 response when this instance has no leadership of that name
     */
    @WriteOperation
    public WebEndpointResponse<LeaderDescriptor> stepDown(@Selector String name) {
        if (runner == null || runner.status(name).isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        int code = WebEndpointResponse.STATUS_OK;
        try {
            runner.yieldAsync(name)
                    .toCompletableFuture()
                    .handle((done, error) -> null) // a step-down does not fail; the status tells where it stands
                    .get(STEP_DOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            code = STATUS_ACCEPTED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the request thread is wanted elsewhere: answer at once
            code = STATUS_ACCEPTED;
        }
        int status = code;
        return describeLeadership(name)
                .map(leadership -> new WebEndpointResponse<>(leadership, status))
                .orElseGet(() -> new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND));
    }

    /** ISO-8601 text of an instant (UTC), to the millisecond, or null. */
    static @Nullable String iso(@Nullable Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    private static @Nullable String iso(@Nullable Duration duration) {
        return duration == null ? null : duration.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    private Optional<LeaderDescriptor> describeLeadership(String name) {
        return runner.status(name)
                .map(status -> LeaderDescriptor.of(
                        status,
                        runner.leader(name).map(CurrentLeaderDescriptor::of).orElse(null)));
    }

    private LeaseDescriptor describe(Lease lease) {
        boolean leader = runner != null
                && runner.lease(lease.name()).filter(led -> led == lease).isPresent();
        return new LeaseDescriptor(
                lease.name(),
                lease.fencingToken(),
                iso(lease.acquiredAt()),
                iso(lease.renewedAt()),
                iso(lease.remaining()),
                leader);
    }

    /**
     * The response of {@code GET /actuator/locks}: the table, this instance's identity, leases, leaders, runs, and
     * the last run of each {@code @LockedRun} method.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record LocksDescriptor(
            String table,
            String partitionKey,
            String sortKey,
            String owner,
            String holder,
            List<LeaseDescriptor> leases,
            List<LeaderDescriptor> leaders,
            List<RunDescriptor> runs,
            List<LastRunDescriptor> lastRuns)
            implements OperationResponseBody {}

    /** A {@code @LockedRun} run whose body runs now: its lock, its lease's fencing token, when the body started. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record RunDescriptor(String name, long fencingToken, String startedAt) implements OperationResponseBody {

        static RunDescriptor of(LockedRunStatus run) {
            return new RunDescriptor(run.name(), run.fencingToken(), iso(run.startedAt()));
        }
    }

    /** A lease this instance holds; {@code leader} when it is the lease of a leader runner's term. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record LeaseDescriptor(
            String name, long fencingToken, String acquiredAt, String renewedAt, String remaining, boolean leader)
            implements OperationResponseBody {}

    /**
     * A leadership of the leader runner ({@link LeadershipStatus}), and who leads it as this instance last knew
     * ({@link LeaderRunner#leader(String)}; null before any read of the item showed a holder).
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record LeaderDescriptor(
            String name,
            LeadershipState state,
            long terms,
            String lastError,
            String lastErrorAt,
            CurrentLeaderDescriptor leader)
            implements OperationResponseBody {

        static LeaderDescriptor of(LeadershipStatus status, @Nullable CurrentLeaderDescriptor leader) {
            return new LeaderDescriptor(
                    status.name(),
                    status.state(),
                    status.terms(),
                    status.lastError().orElse(null),
                    status.lastErrorAt().map(LocksEndpoint::iso).orElse(null),
                    leader);
        }
    }

    /**
     * Who leads a leadership ({@link CurrentLeader}): its holder (null when it set none), owner id and fencing token;
     * {@code since} when this instance first saw the term (the item keeps no time), {@code seenAt} when it last
     * confirmed it; {@code self} when this instance leads.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record CurrentLeaderDescriptor(
            String holder, String owner, long fencingToken, String since, String seenAt, boolean self)
            implements OperationResponseBody {

        static CurrentLeaderDescriptor of(CurrentLeader leader) {
            return new CurrentLeaderDescriptor(
                    leader.holder().orElse(null),
                    leader.owner(),
                    leader.fencingToken(),
                    iso(leader.since()),
                    iso(leader.seenAt()),
                    leader.self());
        }
    }

    /**
     * The last run of a {@code @LockedRun} method this instance knows of ({@link LastLockedRun}): where it ran
     * ({@code instance}), its fencing token, {@code at} (its start, or when a call here found another instance's run
     * holding the lock), {@code endedAt} and {@code outcome} ({@code COMPLETED}, {@code FAILED}, {@code LOST} for a run
     * of this instance; {@code HELD} and no end for another's, whose outcome is not in the item).
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record LastRunDescriptor(
            String name, String instance, long fencingToken, String at, String endedAt, String outcome)
            implements OperationResponseBody {

        /** The outcome shown for a run of another instance, seen holding the lock. */
        public static final String HELD = "HELD";

        static LastRunDescriptor of(LastLockedRun run) {
            return new LastRunDescriptor(
                    run.name(),
                    run.instance(),
                    run.fencingToken(),
                    iso(run.at()),
                    run.endedAt().map(LocksEndpoint::iso).orElse(null),
                    run.outcome().map(Enum::name).orElse(HELD));
        }
    }

    /** The response of {@code GET /actuator/locks/{name}}: the item as stored and this instance's lease, or null. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record LockDescriptor(String name, StoredDescriptor stored, LeaseDescriptor local)
            implements OperationResponseBody {}

    /** A lock item as stored ({@link LockRecord}); the owner is null when the lock is free. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record StoredDescriptor(String owner, String holder, long fencingToken, String leaseDuration)
            implements OperationResponseBody {

        static StoredDescriptor of(LockRecord stored) {
            return new StoredDescriptor(
                    stored.owner().orElse(null),
                    stored.holder().orElse(null),
                    stored.fencingToken(),
                    iso(stored.leaseDuration()));
        }
    }
}
