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
import java.util.OptionalLong;
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
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

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

    /** Registers the meters with a registry. */
    @Override
    public void bindTo(MeterRegistry registry) {
        LockTable table = locks.get();
        if (table == null) {
            return;
        }
        Gauge.builder("locktable.leases.held", table, t -> t.heldLeases().size())
                .description("The leases this instance holds")
                .strongReference(true)
                .register(registry);
        MultiGauge fences = MultiGauge.builder("locktable.lease.fencing.token")
                .description("The fencing token of the lease this instance holds")
                .register(registry);
        Bound b = new Bound(registry, table, runner.get(), runs.get(), fences, ConcurrentHashMap.newKeySet());
        tag(b, OTHER);
        if (b.runner() != null) {
            b.runner().names().forEach(name -> tag(b, name));
        }
        if (b.runs() != null) {
            b.runs().names().forEach(name -> tag(b, name));
        }
        fences(b);
        bound.add(b);
    }

    /** Times the body of a run of this binder's {@link LockedRuns} in {@code locktable.run} when it ended. */
    @Override
    public void onApplicationEvent(LockedRunEvent event) {
        if (event.kind() != LockedRunEvent.Kind.ENDED) {
            return;
        }
        for (Bound b : bound) {
            if (b.runs() != null && event.getSource() == b.runs()) { // runs of another context are not its own
                Timer.builder("locktable.run")
                        .description("Bodies of @LockedRun runs, from start to end")
                        .tag("lock", tag(b, event.name()))
                        .tag("outcome", lower(event.outcome().orElseThrow()))
                        .register(b.registry())
                        .record(event.duration().orElseThrow());
            }
        }
    }

    @Override
    public void onAcquired(Lease lease, boolean tookOver) {
        bound.forEach(LockTableMetrics::fences);
    }

    @Override
    public void onBusy(String name, LockRecord holder) {
        bound.forEach(b -> tag(b, name));
    }

    @Override
    public void onAcquireFinished(
            String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        bound.forEach(b -> Timer.builder(waited ? "locktable.acquire.wait" : "locktable.acquire")
                .description(
                        waited
                                ? "Calls of acquire that waited for a holder, from the call to the end of the wait"
                                : "Calls of tryAcquire and acquire that did not wait for a holder")
                .tag("lock", tag(b, name))
                .tag("outcome", lower(outcome))
                .register(b.registry())
                .record(elapsed));
    }

    @Override
    public void onRenewed(Lease lease) {
        bound.forEach(b -> renewals(b, tag(b, lease.name()), "success").increment());
    }

    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        bound.forEach(b -> renewals(b, tag(b, lease.name()), "failure").increment());
    }

    @Override
    public void onLost(Lease lease, LeaseEnd reason) {
        bound.forEach(b -> {
            lost(b, tag(b, lease.name()), reason).increment();
            fences(b);
        });
    }

    @Override
    public void onReleased(Lease lease) {
        bound.forEach(LockTableMetrics::fences);
    }

    /** The lock tag of a name: the name or template of a runner's or a run's lock, else {@value #OTHER}. */
    static String tagOf(@Nullable LeaderRunner runner, @Nullable LockedRuns runs, String name) {
        String declared = runs != null ? runs.declaredName(name) : name;
        boolean known = (runs != null && runs.names().contains(declared))
                || (runner != null && runner.names().contains(declared));
        return known ? declared : OTHER;
    }

    /** The lock tag of a name, whose meters are registered the first time. */
    private static String tag(Bound b, String name) {
        if (b.named().contains(name)) {
            return name; // a tag already, without copying the names of the runner and the runs
        }
        String tag = tagOf(b.runner(), b.runs(), name);
        if (b.named().add(tag)) {
            if (b.runs() != null && b.runs().names().contains(tag)) {
                FunctionCounter.builder("locktable.run.skipped", b.runs(), r -> r.skipped(tag))
                        .description("@LockedRun calls skipped: another instance held the lock, or the acquire failed")
                        .tag("lock", tag)
                        .register(b.registry());
            } else if (b.runner() != null && b.runner().names().contains(tag)) {
                Gauge.builder("locktable.leader", b.runner(), r -> r.isLeader(tag) ? 1 : 0)
                        .description("1 while this instance leads the name, else 0")
                        .tag("lock", tag)
                        .strongReference(true)
                        .register(b.registry());
                FunctionCounter.builder("locktable.leader.skipped", b.runner(), r -> r.skipped(tag))
                        .description("@LeaderOnly calls skipped because this instance did not lead")
                        .tag("lock", tag)
                        .register(b.registry());
            }
            countersAtZero(b, tag);
        }
        return tag;
    }

    /** So that {@code increase(locktable_leases_lost_total[5m]) > 0} sees the first loss of a tag. */
    private static void countersAtZero(Bound b, String tag) {
        lost(b, tag, LeaseEnd.LOST);
        lost(b, tag, LeaseEnd.EXPIRED);
        renewals(b, tag, "success");
        renewals(b, tag, "failure");
    }

    private static Counter lost(Bound b, String tag, LeaseEnd reason) {
        return Counter.builder("locktable.leases.lost")
                .description("Leases that ended without a release")
                .tag("lock", tag)
                .tag("reason", lower(reason))
                .register(b.registry());
    }

    private static Counter renewals(Bound b, String tag, String outcome) {
        return Counter.builder("locktable.renewals")
                .description("Lease renewals")
                .tag("lock", tag)
                .tag("outcome", outcome)
                .register(b.registry());
    }

    /** One fencing-token gauge per tag of the leases held; the MultiGauge removes those of tags no longer held. */
    private static void fences(Bound b) {
        synchronized (b) { // one register at a time: the rows replace the previous ones
            b.fences()
                    .register(
                            b.locks().heldLeases().stream()
                                    .map(lease -> tag(b, lease.name()))
                                    .distinct()
                                    .map(tag -> MultiGauge.Row.of(Tags.of("lock", tag), b, x -> highestToken(x, tag)))
                                    .toList(),
                            false);
        }
    }

    private static double highestToken(Bound b, String tag) {
        OptionalLong highest = b.locks().heldLeases().stream()
                .filter(lease -> tag(b, lease.name()).equals(tag))
                .mapToLong(Lease::fencingToken)
                .max();
        return highest.isPresent() ? highest.getAsLong() : Double.NaN;
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /** One registry the meters of one lock table are bound to. */
    private record Bound(
            MeterRegistry registry,
            LockTable locks,
            @Nullable LeaderRunner runner,
            @Nullable LockedRuns runs,
            MultiGauge fences,
            Set<String> named) {}
}
