package io.locktable.spring.actuate;

import io.locktable.spring.LockedRunObserver;
import io.micrometer.observation.Observation;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link LockedRunObservationConvention} sees of one call of a {@code @LockedRun} method: from before its lock
 * is asked for to its end.
 */
public final class LockedRunObservationContext extends Observation.Context {

    private final String name;
    private final String declaredName;
    private volatile LockedRunObserver.@Nullable Outcome outcome;

    /**
     * Creates the context of a call.
     *
     * @param name the lock's name, as the call evaluated it
     * @param declaredName the name as declared, such as {@code report-#{#region}}, or the name itself
     */
    public LockedRunObservationContext(String name, String declaredName) {
        this.name = Objects.requireNonNull(name, "name");
        this.declaredName = Objects.requireNonNull(declaredName, "declaredName");
    }

    /**
     * The lock's name.
     *
     * @return the name, as the call evaluated it
     */
    public String name() {
        return name;
    }

    /**
     * The lock's name as declared on the method, of bounded variety.
     *
     * @return the declared name or template
     */
    public String declaredName() {
        return declaredName;
    }

    /**
     * How the call ended.
     *
     * @return the outcome, null until it ended
     */
    public LockedRunObserver.@Nullable Outcome outcome() {
        return outcome;
    }

    void outcome(LockedRunObserver.Outcome outcome) {
        this.outcome = outcome;
    }
}
