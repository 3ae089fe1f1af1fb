package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;

/**
 * The {@code locktable.*} meters of a lock table and its leader runner:
 *
 * <ul>
 *   <li>gauge {@code locktable.leases.held}: how many leases this instance holds (no base unit, so Prometheus
 *       shows {@code locktable_leases_held});
 *   <li>gauge {@code locktable.lease.fencing.token{lock}}: the fencing token of the lease held, removed when it is
 *       released or lost;
 *   <li>gauge {@code locktable.leader{lock}}: 1 while this instance leads the name, else 0;
 *   <li>timer {@code locktable.acquire{lock,outcome}}: each {@code tryAcquire} or {@code acquire} call that did not
 *       wait for a holder (one attempt), with outcome {@code acquired}, {@code taken_over}, {@code busy}, {@code
 *       timeout}, {@code error} or {@code cancelled} (an interrupted or cancelled acquire);
 *   <li>timer {@code locktable.acquire.wait{lock,outcome}}: each {@code acquire} call that found the lock held and
 *       waited (a follower of a leadership, say), from the call to the end of its wait;
 *   <li>counter {@code locktable.renewals{lock,outcome}}: renewals, outcome {@code success} or {@code failure};
 *   <li>counter {@code locktable.leases.lost{lock,reason}}: leases that ended without a release, reason {@code
 *       lost} or {@code expired};
 *   <li>counter {@code locktable.leader.skipped{lock}}: {@link LeaderOnly} calls skipped because this instance did
 *       not lead;
 *   <li>timer {@code locktable.run{lock,outcome}}: the bodies of {@link LockedRun} runs, from start to end, outcome
 *       {@code completed}, {@code failed} or {@code lost} (not the time the lock stayed held for a {@code minHold});
 *   <li>counter {@code locktable.run.skipped{lock}}: {@link LockedRun} calls skipped, because another instance held
 *       the lock, the acquire failed, or the application was stopping.
 * </ul>
 *
 * <p>The {@code lock} tag is the lock's name only for the names of the leader runner (those of the {@link
 * LeaderOnly} methods) and of the {@link LockedRun} methods (for a name with {@code #{...}} parts, the name as
 * declared, such as {@code report-#{#region}}, for every lock its calls evaluate); every other lock is tagged
 * {@value #OTHER}, which keeps the number of series bounded. The loss and renewal counters of every such tag exist
 * from the start, at zero.
 *
 * <p>The values come from the lock table's events, which reach this binder as a {@link LockTableListener} (the
 * auto-configured lock table calls every listener bean; each event updates the meters listed above), from the {@code ENDED} {@link LockedRunEvent}s of its {@link
 * LockedRuns} (it is an application listener), and from the leader runner, the runs and the lock table's memory;
 * nothing is read from DynamoDB for a scrape. Thread-safe.
 */
public final class LockTableMetrics implements MeterBinder, LockTableListener, ApplicationListener<LockedRunEvent> {

    /** The {@code lock} tag of every lock that is not a name of the leader runner. */
    public static final String OTHER = "other";

    private static final Logger log = LoggerFactory.getLogger(LockTableMetrics.class);

    private final Supplier<LockTable> locks;
    private final Supplier<LeaderRunner> runner;
    private final Supplier<LockedRuns> runs;
    private final List<LockMeters> bound = new CopyOnWriteArrayList<>();

    /**
     * Creates the binder, without the meters of {@link LockedRun} runs. The suppliers are asked when it is bound to
     * a registry, so the binder may be created before the lock table (it is one of the lock table's listeners).
     *
     * @param locks the lock table, asked when bound; a null answer binds nothing
     * @param runner the leader runner, asked when bound; null when there is none
     */
    public LockTableMetrics(Supplier<LockTable> locks, Supplier<LeaderRunner> runner) {
        this(locks, runner, () -> null);
    }

    /**
     * Creates the binder. The suppliers are asked when it is bound to a registry, so the binder may be created
     * before the lock table (it is one of the lock table's listeners).
     *
     * @param locks the lock table, asked when bound; a null answer binds nothing
     * @param runner the leader runner, asked when bound; null when there is none
     * @param runs the runs of the {@link LockedRun} methods, asked when bound; null when there are none
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
        if (table == null) {
            log.debug("No lock table: no locktable.* meters in {}", registry);
            return;
        }
        bound.add(new LockMeters(registry, table, runner.get(), runs.get()));
    }

    /**
     * Times the body of a {@link LockedRun} run of this binder's {@link LockedRuns} in {@code locktable.run}.
     *
     * @param event an event of a run: its {@link LockedRunEvent.Kind#ENDED} is timed
     */
    @Override
    public void onApplicationEvent(LockedRunEvent event) {
        each(m -> m.runEnded(event));
    }

    private void each(Consumer<LockMeters> event) {
        for (LockMeters meters : bound) {
            event.accept(meters);
        }
    }

    @Override
    public void onAcquired(Lease lease, boolean tookOver) {
        each(m -> m.acquired(lease));
    }

    @Override
    public void onBusy(String name, LockRecord holder) {
        each(m -> m.seen(name));
    }

    @Override
    public void onAcquireFinished(String name, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        each(m -> m.acquireFinished(name, outcome, elapsed, waited));
    }

    @Override
    public void onRenewed(Lease lease) {
        each(m -> m.renewal(lease, true));
    }

    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        each(m -> m.renewal(lease, false));
    }

    @Override
    public void onLost(Lease lease, LeaseEnd reason) {
        each(m -> m.lost(lease, reason));
    }

    @Override
    public void onReleased(Lease lease) {
        each(m -> m.ended(lease));
    }

    @Override
    public String toString() {
        return "LockTableMetrics[" + bound.size() + " registries]";
    }
}
