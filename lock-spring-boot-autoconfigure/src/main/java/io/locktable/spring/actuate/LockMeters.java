package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The {@code locktable.*} meters of one lock table in one registry (see {@link LockTableMetrics}). */
final class LockMeters {

    private final MeterRegistry registry;
    private final LockTable locks;
    private final LeaderRunner runner;
    private final LockedRuns runs;
    private final Set<String> leaders = ConcurrentHashMap.newKeySet();
    private final Set<String> runNames = ConcurrentHashMap.newKeySet();
    private final Map<String, Gauge> fences = new HashMap<>(); // guarded by this

    LockMeters(MeterRegistry registry, LockTable locks, LeaderRunner runner, LockedRuns runs) {
        this.registry = registry;
        this.locks = locks;
        this.runner = runner;
        this.runs = runs;
        Gauge.builder(
                        "locktable.leases.held",
                        locks,
                        table -> table.heldLeases().size())
                .description("The leases this instance holds")
                .strongReference(true)
                .register(registry);
        countersAtZero(LockTableMetrics.OTHER);
        if (runner != null) {
            runner.names().forEach(this::tag);
        }
        if (runs != null) {
            runs.names().forEach(this::tag);
        }
        locks.heldLeases().forEach(this::acquired);
    }

    /**
     * The lock tag of a name: the name for a name of the leader runner or of the {@code @LockedRun} methods, whose
     * meters it registers; the template for a name a {@code @LockedRun} call evaluated from one; else other.
     */
    String tag(String name) {
        if (leaders.contains(name) || runNames.contains(name)) {
            return name;
        }
        String declared = runs != null ? runs.declaredName(name) : name;
        if (!declared.equals(name)) {
            return tag(declared); // a name evaluated from a template: its template, one series per method
        }
        if (runs != null && runs.names().contains(name) && runNames.add(name)) {
            FunctionCounter.builder("locktable.run.skipped", runs, r -> r.skipped(name))
                    .description("@LockedRun calls skipped: another instance held the lock, or the acquire failed")
                    .tag("lock", name)
                    .register(registry);
            countersAtZero(name);
            return name;
        }
        if (runner == null || !runner.names().contains(name)) {
            return LockTableMetrics.OTHER;
        }
        if (leaders.add(name)) {
            Gauge.builder("locktable.leader", runner, r -> r.isLeader(name) ? 1 : 0)
                    .description("1 while this instance leads the name, else 0")
                    .tag("lock", name)
                    .strongReference(true)
                    .register(registry);
            FunctionCounter.builder("locktable.leader.skipped", runner, r -> r.skipped(name))
                    .description("@LeaderOnly calls skipped because this instance did not lead")
                    .tag("lock", name)
                    .register(registry);
            countersAtZero(name);
        }
        return name;
    }

    /**
     * Registers the counters of losses and failed renewals of a tag at zero, so that a query such as {@code
     * increase(locktable_leases_lost_total[5m]) > 0} sees the first one (a series born at 1 shows no increase).
     */
    private void countersAtZero(String tag) {
        for (LeaseEnd reason : new LeaseEnd[] {LeaseEnd.LOST, LeaseEnd.EXPIRED}) {
            lostCounter(tag, reason);
        }
        renewalCounter(tag, true);
        renewalCounter(tag, false);
    }

    private Counter lostCounter(String tag, LeaseEnd reason) {
        return Counter.builder("locktable.leases.lost")
                .description("Leases that ended without a release")
                .tag("lock", tag)
                .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                .register(registry);
    }

    private Counter renewalCounter(String tag, boolean success) {
        return Counter.builder("locktable.renewals")
                .description("Lease renewals")
                .tag("lock", tag)
                .tag("outcome", success ? "success" : "failure")
                .register(registry);
    }

    void seen(String name) {
        tag(name);
    }

    synchronized void acquired(Lease lease) {
        String tag = tag(lease.name());
        fences.computeIfAbsent(
                tag,
                t -> Gauge.builder("locktable.lease.fencing.token", () -> highestToken(t))
                        .description("The fencing token of the lease this instance holds")
                        .tag("lock", t)
                        .register(registry));
    }

    /**
     * Times a finished call: in {@code locktable.acquire} when it did not wait for a holder (a single attempt: the
     * time of its requests), in {@code locktable.acquire.wait} when it found the lock held and went on waiting (the
     * whole wait).
     */
    void acquireFinished(String name, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        Timer.builder(waited ? "locktable.acquire.wait" : "locktable.acquire")
                .description(
                        waited
                                ? "Calls of acquire that waited for a holder, from the call to the end of the wait"
                                : "Calls of tryAcquire and acquire that did not wait for a holder")
                .tag("lock", tag(name))
                .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                .register(registry)
                .record(elapsed);
    }

    /** Times the body of a run of this binder's {@code LockedRuns}; runs of another context are not its own. */
    void runEnded(LockedRunEvent event) {
        if (runs == null || event.getSource() != runs || event.kind() != LockedRunEvent.Kind.ENDED) {
            return;
        }
        Timer.builder("locktable.run")
                .description("Bodies of @LockedRun runs, from start to end")
                .tag("lock", tag(event.name()))
                .tag("outcome", event.outcome().orElseThrow().name().toLowerCase(Locale.ROOT))
                .register(registry)
                .record(event.duration().orElseThrow());
    }

    void renewal(Lease lease, boolean success) {
        renewalCounter(tag(lease.name()), success).increment();
    }

    void lost(Lease lease, LeaseEnd reason) {
        lostCounter(tag(lease.name()), reason).increment();
        ended(lease);
    }

    /** After a lease ended (the table no longer lists it): removes its lock's gauge if no lease of it is left. */
    synchronized void ended(Lease lease) {
        String tag = tag(lease.name());
        if (Double.isNaN(highestToken(tag))) {
            Gauge gauge = fences.remove(tag);
            if (gauge != null) {
                registry.remove(gauge);
            }
        }
    }

    private double highestToken(String tag) {
        OptionalLong highest = locks.heldLeases().stream()
                .filter(lease -> tag(lease.name()).equals(tag))
                .mapToLong(Lease::fencingToken)
                .max();
        return highest.isPresent() ? highest.getAsLong() : Double.NaN;
    }
}
