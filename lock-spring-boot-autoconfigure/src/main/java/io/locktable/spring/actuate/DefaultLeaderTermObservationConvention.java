package io.locktable.spring.actuate;

import io.micrometer.common.KeyValues;

/**
 * The default observation of a leader term: named {@value #NAME}, with the low-cardinality key {@code lock} (a name
 * of the leader runner, so the number of values stays bounded) and the high-cardinality key {@code fencing.token}.
 * Through Micrometer's default handler it is a long task timer of the terms in progress and a timer of the ended
 * ones.
 */
public class DefaultLeaderTermObservationConvention implements LeaderTermObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "locktable.leader.term";

    /** Creates the convention. */
    public DefaultLeaderTermObservationConvention() {}

    /**
     * The name of the observation.
     *
     * @return {@value #NAME}
     */
    @Override
    public String getName() {
        return NAME;
    }

    /**
     * The contextual name, for traces: {@code leader term <name>}.
     *
     * @param context the term
     * @return the contextual name
     */
    @Override
    public String getContextualName(LeaderTermObservationContext context) {
        return "leader term " + context.leadership();
    }

    /**
     * The key {@code lock}: the name of the leadership.
     *
     * @param context the term
     * @return the low-cardinality key values
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(LeaderTermObservationContext context) {
        return KeyValues.of("lock", context.leadership());
    }

    /**
     * The key {@code fencing.token}: the term's fencing token.
     *
     * @param context the term
     * @return the high-cardinality key values
     */
    @Override
    public KeyValues getHighCardinalityKeyValues(LeaderTermObservationContext context) {
        return KeyValues.of("fencing.token", Long.toString(context.fencingToken()));
    }
}
