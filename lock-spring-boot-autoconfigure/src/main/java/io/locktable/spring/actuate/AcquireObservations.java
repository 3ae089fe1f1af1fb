package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;

/**
 * Observes the acquires of a lock table with Micrometer's Observation API, as a listener of the table: an observation
 * starts when an acquire starts ({@link LockTableListener#onAcquireStarted}) and stops with its outcome when it
 * finishes, so it spans the wait. Named and tagged by an {@link AcquireObservationConvention} ({@link
 * DefaultAcquireObservationConvention} unless one is given). Thread-safe.
 *
 * <p>The events come on the table's event thread, after the fact: an observation starts there a moment after the
 * call did, and it is not a child of the caller's observation (the event thread cannot see it), so in a trace an
 * acquire is a span of its own. Several calls of one name may be in flight at once and the events do not say which
 * start a finish belongs to; a finish tells how long its call took, so it stops the open observation of its name
 * that started closest to then. That is exact for one call of a name at a time; calls of one name that start within
 * the event thread's delay of each other may exchange their observations. A leadership that stops while it contends
 * finishes no acquire: its observation stops, without an outcome, when the context closes.
 */
public final class AcquireObservations implements LockTableListener, DisposableBean {

    private static final AcquireObservationConvention DEFAULT = new DefaultAcquireObservationConvention();

    private final ObservationRegistry registry;
    private final @Nullable AcquireObservationConvention convention;
    private final Supplier<@Nullable LeaderRunner> runner;
    private final Supplier<@Nullable LockedRuns> runs;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, List<Open>> open = new HashMap<>(); // guarded by lock

    /**
     * Creates the observer.
     *
     * @param registry the registry the observations go to
     * @param convention the convention that replaces the default one, or null for the default one
     * @param runner the leader runner, whose names tag as themselves, or a supplier of null
     * @param runs the {@code @LockedRun} runs, whose declared names tag as themselves, or a supplier of null
     */
    public AcquireObservations(
            ObservationRegistry registry,
            @Nullable AcquireObservationConvention convention,
            Supplier<@Nullable LeaderRunner> runner,
            Supplier<@Nullable LockedRuns> runs) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.convention = convention;
        this.runner = Objects.requireNonNull(runner, "runner");
        this.runs = Objects.requireNonNull(runs, "runs");
    }

    /**
     * Starts the observation of an acquire.
     *
     * @param name the lock
     */
    @Override
    public void onAcquireStarted(String name) {
        AcquireObservationContext context = new AcquireObservationContext(name, tag(name));
        Observation observation = Observation.createNotStarted(convention, DEFAULT, () -> context, registry)
                .start();
        lock.lock();
        try {
            open.computeIfAbsent(name, n -> new ArrayList<>()).add(new Open(observation, context, System.nanoTime()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the observation of an acquire with its outcome.
     *
     * @param name the lock
     * @param outcome how it ended
     * @param elapsed how long the call took, which picks its observation among several of the name
     * @param waited whether it waited for a holder
     */
    @Override
    public void onAcquireFinished(String name, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        Open finished;
        lock.lock();
        try {
            List<Open> ofName = open.get(name);
            if (ofName == null) {
                return; // started before this observer heard the table
            }
            long startedAt = System.nanoTime() - elapsed.toNanos();
            finished = ofName.stream()
                    .min(Comparator.comparingLong(o -> Math.abs(o.startedNanos() - startedAt)))
                    .orElseThrow();
            ofName.remove(finished);
            if (ofName.isEmpty()) {
                open.remove(name);
            }
        } finally {
            lock.unlock();
        }
        finished.context().outcome(outcome);
        finished.observation().stop();
    }

    /** Stops the observations still open, without an outcome; called by the context when it closes. */
    @Override
    public void destroy() {
        List<Open> left = new ArrayList<>();
        lock.lock();
        try {
            open.values().forEach(left::addAll);
            open.clear();
        } finally {
            lock.unlock();
        }
        left.forEach(o -> o.observation().stop());
    }

    /** The name, its template, or other: as the meters tag a lock (see {@link LockTableMetrics}). */
    private String tag(String name) {
        LockedRuns lockedRuns = runs.get();
        String declared = lockedRuns != null ? lockedRuns.declaredName(name) : name;
        LeaderRunner leaders = runner.get();
        boolean known = (lockedRuns != null && lockedRuns.names().contains(declared))
                || (leaders != null && leaders.names().contains(declared));
        return known ? declared : LockTableMetrics.OTHER;
    }

    private record Open(Observation observation, AcquireObservationContext context, long startedNanos) {}
}
