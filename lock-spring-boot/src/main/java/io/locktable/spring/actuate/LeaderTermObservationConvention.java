package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of a leader term. Declare a bean of this type to replace {@link DefaultLeaderTermObservationConvention}. */
public interface LeaderTermObservationConvention extends ObservationConvention<LockObservationContext> {

    /** {@return whether the context is one of a leader term} */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext lock && lock.kind() == LockObservationContext.Kind.LEADER_TERM;
    }
}
