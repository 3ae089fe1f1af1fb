package io.locktable.spring.actuate;

import io.micrometer.common.KeyValues;

/**
 * The default observation of a leader term: named {@value #NAME}, contextual name {@code leader term <name>},
 * low-cardinality key {@code lock} (a name of the leader runner), high-cardinality key {@code fencing.token}. Extend
 * it to change a part.
 */
public class DefaultLeaderTermObservationConvention implements LeaderTermObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "locktable.leader.term";

    /** Creates the convention. */
    public DefaultLeaderTermObservationConvention() {}

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "leader term " + context.lock();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of("lock", context.lock());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of("fencing.token", Long.toString(context.fencingToken()));
    }
}
