package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LeadershipGrantedEvent;
import io.locktable.spring.LeadershipRevokedEvent;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRunObserver;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.LockObservationContext.Kind;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;

/**
 * Micrometer observations of a lock table: of each acquire ({@value DefaultAcquireObservationConvention#NAME}, as a
 * listener of the table), of each {@code @LockedRun} call ({@value DefaultLockedRunObservationConvention#NAME}, as
 * the {@link LockedRuns#observer(LockedRunObserver) observer} of the runs) and of each leader term ({@value
 * DefaultLeaderTermObservationConvention#NAME}, from the leadership events). Each is named and tagged by its
 * convention, the default one unless another is given. Observations still open stop when the context closes.
 *
 * <p>A run's observation starts on the caller's thread and is current while the body runs, so the body's spans
 * nest under it (a run whose work ends later, such as a future, has no scope). An acquire is heard from the table's
 * events, which come a moment later on its event thread; its observation's parent is the observation current there,
 * which is the caller's when the table propagates it ({@code LockTable.Builder.propagateContextToListeners}, as the
 * auto-configured table does with context-propagation on the class path): the run's for a {@code @LockedRun} call
 * that blocks, the caller's own for one whose work ends later; a leadership's acquire has none. A finish stops the
 * observation of the start with its id, so calls of one name that overlap each get their own. Thread-safe.
 */
public final class LockObservations
        implements LockTableListener, LockedRunObserver, ApplicationListener<ApplicationEvent>, DisposableBean {

    private static final AcquireObservationConvention ACQUIRES = new DefaultAcquireObservationConvention();
    private static final LockedRunObservationConvention RUNS = new DefaultLockedRunObservationConvention();
    private static final LeaderTermObservationConvention TERMS = new DefaultLeaderTermObservationConvention();

    private final ObservationRegistry registry;
    private final @Nullable AcquireObservationConvention acquires;
    private final @Nullable LockedRunObservationConvention runs;
    private final @Nullable LeaderTermObservationConvention terms;
    private final Supplier<@Nullable LeaderRunner> runner;
    private final Supplier<@Nullable LockedRuns> lockedRuns;
    private final Map<Long, Open> openAcquires = new ConcurrentHashMap<>();
    private final Map<String, Observation> openTerms = new ConcurrentHashMap<>();

    /**
     * Creates the observer.
     *
     * @param registry the registry the observations go to
     * @param acquires the convention of acquires, or null for the default one
     * @param runs the convention of {@code @LockedRun} calls, or null for the default one
     * @param terms the convention of leader terms, or null for the default one
     * @param runner the leader runner, whose names tag acquires as themselves, or a supplier of null
     * @param lockedRuns the {@code @LockedRun} runs, whose declared names tag acquires, or a supplier of null
     */
    public LockObservations(
            ObservationRegistry registry,
            @Nullable AcquireObservationConvention acquires,
            @Nullable LockedRunObservationConvention runs,
            @Nullable LeaderTermObservationConvention terms,
            Supplier<@Nullable LeaderRunner> runner,
            Supplier<@Nullable LockedRuns> lockedRuns) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.acquires = acquires;
        this.runs = runs;
        this.terms = terms;
        this.runner = Objects.requireNonNull(runner, "runner");
        this.lockedRuns = Objects.requireNonNull(lockedRuns, "lockedRuns");
    }

    /** Started with the custom convention if given, else a global one of the registry, else the default one. */
    private Observation start(
            @Nullable ObservationConvention<LockObservationContext> custom,
            ObservationConvention<LockObservationContext> defaults,
            LockObservationContext context) {
        return Observation.createNotStarted(custom, defaults, () -> context, registry)
                .start();
    }

    @Override
    public void onAcquireStarted(String name, long acquireId) {
        LockObservationContext context = new LockObservationContext(
                Kind.ACQUIRE, name, LockTableMetrics.tagOf(runner.get(), lockedRuns.get(), name), 0);
        openAcquires.put(acquireId, new Open(start(acquires, ACQUIRES, context), context));
    }

    @Override
    public void onAcquireFinished(
            String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        Open finished = openAcquires.remove(acquireId);
        if (finished != null) { // else it started before this observer heard the table
            finished.context().outcome(outcome);
            finished.observation().stop();
        }
    }

    @Override
    public Call started(String name, String declaredName) {
        return run(name, declaredName, true);
    }

    @Override
    public Call startedDeferred(String name, String declaredName) {
        return run(name, declaredName, false);
    }

    /** A run whose work ends later has no scope: its end may come on another thread. */
    private Call run(String name, String declaredName, boolean scoped) {
        LockObservationContext context = new LockObservationContext(Kind.LOCKED_RUN, name, declaredName, 0);
        Observation observation = start(runs, RUNS, context);
        Observation.@Nullable Scope scope = scoped ? observation.openScope() : null;
        return new Call() {
            @Override
            public void ended(LockedRunEvent.Outcome outcome, @Nullable Throwable error) {
                stop(outcome.name(), error);
            }

            @Override
            public void skipped(@Nullable Throwable error) {
                stop("SKIPPED", error);
            }

            private void stop(String outcome, @Nullable Throwable error) {
                if (scope != null) {
                    scope.close();
                }
                context.outcome(outcome);
                if (error != null) {
                    observation.error(error);
                }
                observation.stop();
            }
        };
    }

    /** Starts a term's observation at a {@link LeadershipGrantedEvent}, stops it at a {@link LeadershipRevokedEvent}. */
    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof LeadershipGrantedEvent granted) {
            LockObservationContext context = new LockObservationContext(
                    Kind.LEADER_TERM,
                    granted.name(),
                    granted.name(),
                    granted.lease().fencingToken());
            Observation previous = openTerms.put(granted.name(), start(terms, TERMS, context));
            if (previous != null) {
                previous.stop(); // a revocation that never came (an event dropped at a stop)
            }
        } else if (event instanceof LeadershipRevokedEvent revoked) {
            Optional.ofNullable(openTerms.remove(revoked.name())).ifPresent(Observation::stop);
        }
    }

    /**
     * Stops the observations still open; called by the context when it closes. An acquire still open (a leadership
     * that contended until the stop) ends {@code cancelled}.
     */
    @Override
    public void destroy() {
        openTerms.values().forEach(Observation::stop);
        openTerms.clear();
        openAcquires.values().forEach(open -> {
            open.context().outcome(AcquireOutcome.CANCELLED);
            open.observation().stop();
        });
        openAcquires.clear();
    }

    private record Open(Observation observation, LockObservationContext context) {}
}
