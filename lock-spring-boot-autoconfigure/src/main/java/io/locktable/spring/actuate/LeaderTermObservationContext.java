package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * What a {@link LeaderTermObservationConvention} sees of one leader term: from the moment this instance leads a
 * name until it no longer does.
 */
public final class LeaderTermObservationContext extends Observation.Context {

    private final String leadership;
    private final long fencingToken;

    /**
     * Creates the context of a term.
     *
     * @param leadership the name of the leadership, which is the name of its lock
     * @param fencingToken the fencing token of the term's lease
     */
    public LeaderTermObservationContext(String leadership, long fencingToken) {
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.fencingToken = fencingToken;
    }

    /**
     * The name of the leadership.
     *
     * @return the name, one of the leader runner's names
     */
    public String leadership() {
        return leadership;
    }

    /**
     * The fencing token of the term's lease, which identifies the term.
     *
     * @return the fencing token
     */
    public long fencingToken() {
        return fencingToken;
    }
}
