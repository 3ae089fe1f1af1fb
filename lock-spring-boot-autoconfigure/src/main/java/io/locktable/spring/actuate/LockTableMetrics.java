package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationListener;

/**
 * The {@code locktable.*} meters of a lock table, its leader runner and its {@code @LockedRun} runs: gauges {@code
 * locktable.leases.held}, {@code locktable.lease.fencing.token{lock}} (removed when the lock's last lease ends) and
 * {@code locktable.leader{lock}}; timers {@code locktable.acquire{lock,outcome}} (calls that did not wait for a
 * holder), {@code locktable.acquire.wait{lock,outcome}} (calls that waited) and {@code locktable.run{lock,outcome}}
 * (bodies of runs); counters {@code locktable.renewals{lock,outcome}}, {@code locktable.leases.lost{lock,reason}},
 * {@code locktable.leader.skipped{lock}} and {@code locktable.run.skipped{lock}}.
 *
 * <p>The {@code lock} tag is the lock's name only for a name of the leader runner or of a {@code @LockedRun} method
 * (for a name with {@code #{...}} parts, the name as declared); every other lock is tagged {@value #OTHER}, so the
 * number of series stays bounded. The loss and renewal counters of each tag start at zero. The values come from the
 * lock table's events (this binder is a {@link LockTableListener}), from the {@code ENDED} {@link LockedRunEvent}s,
 * and from the runner, the runs and the table's memory; a scrape sends no request. Thread-safe.
 */
public final class LockTableMetrics implements MeterBinder, LockTableListener, ApplicationListener<LockedRunEvent> {

    /** The {@code lock} tag of every lock that is not a name of the leader runner or of a {@code @LockedRun}. */
    public static final String OTHER = "other";

    private final Supplier<LockTable> locks;
    private final Supplier<LeaderRunner> runner;
    private final Supplier<LockedRuns> runs;
    private final List<Meters> bound = new CopyOnWriteArrayList<>();

    /**
     * Creates the binder, without the meters of {@code @LockedRun} runs.
     *
     * @param locks the lock table, asked when bound; a null answer binds nothing
     * @param runner the leader runner, asked when bound; null when there is none
     */
    public LockTableMetrics(Supplier<LockTable> locks, Supplier<LeaderRunner> runner) {
        this(locks, runner, () -> null);
    }

    /**
     * Creates the binder. The suppliers are asked when it is bound, so it may be created before the lock table it
     * listens to.
     *
     * @param locks the lock table, asked when bound; a null answer binds nothing
     * @param runner the leader runner, asked when bound; null when there is none
     * @param runs the runs of the {@code @LockedRun} methods, asked when bound; null when there are none
     */
    public LockTableMetrics(Supplier<LockTable> locks, Supplier<LeaderRunner> runner, Supplier<LockedRuns> runs) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.runs = Objects.requireNonNull(runs, "runs");
    }

    /**
     * Registers the meters with a registry.
     *
     * @param registry the registry
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        LockTable table = locks.get();
        if (table != null) {
            bound.add(new Meters(registry, table, runner.get(), runs.get()));
        }
    }

    /**
     * Times the body of a run of this binder's {@link LockedRuns} in {@code locktable.run}.
     *
     * @param event an event of a run; only {@link LockedRunEvent.Kind#ENDED} is timed
     */
    @Override
    public void onApplicationEvent(LockedRunEvent event) {
        if (event.kind() == LockedRunEvent.Kind.ENDED) {
            bound.forEach(m -> m.runEnded(event));
        }
    }

    /** Registers the lock's fencing-token gauge. */
    @Override
    public void onAcquired(Lease lease, boolean tookOver) {
        bound.forEach(m -> m.leasesChanged(lease.name()));
    }

    /** Registers the lock's meters if it has a name of its own. */
    @Override
    public void onBusy(String name, LockRecord holder) {
        bound.forEach(m -> m.tag(name));
    }

    /** Times the call in {@code locktable.acquire} or {@code locktable.acquire.wait}. */
    @Override
    public void onAcquireFinished(String name, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        bound.forEach(m -> m.acquireFinished(name, outcome, elapsed, waited));
    }

    /** Counts a successful renewal. */
    @Override
    public void onRenewed(Lease lease) {
        bound.forEach(m -> m.renewal(lease.name(), true));
    }

    /** Counts a failed renewal. */
    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        bound.forEach(m -> m.renewal(lease.name(), false));
    }

    /** Counts the loss and removes the lock's fencing-token gauge if no lease of it is left. */
    @Override
    public void onLost(Lease lease, LeaseEnd reason) {
        bound.forEach(m -> {
            m.lostCounter(m.tag(lease.name()), reason).increment();
            m.leasesChanged(lease.name());
        });
    }

    /** Removes the lock's fencing-token gauge if no lease of it is left. */
    @Override
    public void onReleased(Lease lease) {
        bound.forEach(m -> m.leasesChanged(lease.name()));
    }

    @Override
    public String toString() {
        return "LockTableMetrics[" + bound.size() + " registries]";
    }

    /** The meters of one lock table in one registry. */
    private static final class Meters {

        private final MeterRegistry registry;
        private final LockTable locks;
        private final @Nullable LeaderRunner runner;
        private final @Nullable LockedRuns runs;
        private final Set<String> named = ConcurrentHashMap.newKeySet();
        private final MultiGauge fences;

        Meters(MeterRegistry registry, LockTable locks, @Nullable LeaderRunner runner, @Nullable LockedRuns runs) {
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
            fences = MultiGauge.builder("locktable.lease.fencing.token")
                    .description("The fencing token of the lease this instance holds")
                    .register(registry);
            countersAtZero(OTHER);
            if (runner != null) {
                runner.names().forEach(this::tag);
            }
            if (runs != null) {
                runs.names().forEach(this::tag);
            }
            leasesChanged(null);
        }

        /**
         * The lock tag of a name: itself for a name of the runner or of the runs (registering its meters the first
         * time), the template for a name a run evaluated from one, else other.
         */
        String tag(String name) {
            if (named.contains(name)) {
                return name;
            }
            String declared = runs != null ? runs.declaredName(name) : name;
            if (!declared.equals(name)) {
                return tag(declared);
            }
            boolean run = runs != null && runs.names().contains(name);
            boolean leader = runner != null && runner.names().contains(name);
            if (!run && !leader) {
                return OTHER;
            }
            if (named.add(name)) {
                if (run) {
                    FunctionCounter.builder("locktable.run.skipped", runs, r -> r.skipped(name))
                            .description("@LockedRun calls skipped: another instance held the lock, or the acquire "
                                    + "failed")
                            .tag("lock", name)
                            .register(registry);
                } else {
                    Gauge.builder("locktable.leader", runner, r -> r.isLeader(name) ? 1 : 0)
                            .description("1 while this instance leads the name, else 0")
                            .tag("lock", name)
                            .strongReference(true)
                            .register(registry);
                    FunctionCounter.builder("locktable.leader.skipped", runner, r -> r.skipped(name))
                            .description("@LeaderOnly calls skipped because this instance did not lead")
                            .tag("lock", name)
                            .register(registry);
                }
                countersAtZero(name);
            }
            return name;
        }

        /** So that {@code increase(locktable_leases_lost_total[5m]) > 0} sees the first loss of a tag. */
        private void countersAtZero(String tag) {
            lostCounter(tag, LeaseEnd.LOST);
            lostCounter(tag, LeaseEnd.EXPIRED);
            renewalCounter(tag, true);
            renewalCounter(tag, false);
        }

        Counter lostCounter(String tag, LeaseEnd reason) {
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

        void renewal(String name, boolean success) {
            renewalCounter(tag(name), success).increment();
        }

        /** One fencing-token gauge per tag of the leases held; MultiGauge removes those of tags no longer held. */
        synchronized void leasesChanged(@Nullable String name) {
            if (name != null) {
                tag(name);
            }
            fences.register(
                    locks.heldLeases().stream()
                            .map(lease -> tag(lease.name()))
                            .distinct()
                            .map(tag -> MultiGauge.Row.of(Tags.of("lock", tag), this, m -> m.highestToken(tag)))
                            .toList(),
                    false);
        }

        private double highestToken(String tag) {
            return locks.heldLeases().stream()
                    .filter(lease -> tag(lease.name()).equals(tag))
                    .mapToLong(Lease::fencingToken)
                    .max()
                    .stream()
                    .mapToDouble(token -> token)
                    .findFirst()
                    .orElse(Double.NaN);
        }

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

        /** Runs of another context's {@link LockedRuns} are not this binder's. */
        void runEnded(LockedRunEvent event) {
            if (runs != null && event.getSource() == runs) {
                Timer.builder("locktable.run")
                        .description("Bodies of @LockedRun runs, from start to end")
                        .tag("lock", tag(event.name()))
                        .tag("outcome", event.outcome().orElseThrow().name().toLowerCase(Locale.ROOT))
                        .register(registry)
                        .record(event.duration().orElseThrow());
            }
        }
    }
}
