package io.locktable.spring.actuate;

import io.locktable.spring.LockedRunObserver;
import io.locktable.spring.LockedRuns;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Observes the calls of {@code @LockedRun} methods with Micrometer's Observation API, as the {@link
 * LockedRuns#observer(LockedRunObserver) observer} of {@link LockedRuns}: an observation starts on the caller's thread
 * before the lock is asked for, is the current one while the body runs (a trace nests the body's spans under it),
 * and stops with the call's outcome. Named and tagged by a {@link LockedRunObservationConvention} ({@link
 * DefaultLockedRunObservationConvention} unless one is given). Thread-safe.
 */
public final class LockedRunObservations implements LockedRunObserver {

    private static final LockedRunObservationConvention DEFAULT = new DefaultLockedRunObservationConvention();

    private final ObservationRegistry registry;
    private final @Nullable LockedRunObservationConvention convention;

    /**
     * Creates the observer.
     *
     * @param registry the registry the observations go to
     * @param convention the convention that replaces the default one, or null for the default one
     */
    public LockedRunObservations(ObservationRegistry registry, @Nullable LockedRunObservationConvention convention) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.convention = convention;
    }

    /**
     * Starts the observation of a call and opens its scope on the caller's thread.
     *
     * @param name the lock's name, as the call evaluated it
     * @param declaredName the name as declared
     * @return what stops it, on the same thread
     */
    @Override
    public Call started(String name, String declaredName) {
        LockedRunObservationContext context = new LockedRunObservationContext(name, declaredName);
        Observation observation = Observation.createNotStarted(convention, DEFAULT, () -> context, registry)
                .start();
        Observation.Scope scope = observation.openScope();
        return (outcome, error) -> {
            scope.close();
            stop(observation, context, outcome, error);
        };
    }

    /**
     * Starts the observation of a call whose work ends after it returned (a future, a publisher), without a scope:
     * its end may come on another thread.
     *
     * @param name the lock's name, as the call evaluated it
     * @param declaredName the name as declared
     * @return what stops it, on any thread
     */
    @Override
    public Call startedDeferred(String name, String declaredName) {
        LockedRunObservationContext context = new LockedRunObservationContext(name, declaredName);
        Observation observation = Observation.createNotStarted(convention, DEFAULT, () -> context, registry)
                .start();
        return (outcome, error) -> stop(observation, context, outcome, error);
    }

    private static void stop(
            Observation observation, LockedRunObservationContext context, Outcome outcome, @Nullable Throwable error) {
        context.outcome(outcome);
        if (error != null) {
            observation.error(error);
        }
        observation.stop();
    }
}
