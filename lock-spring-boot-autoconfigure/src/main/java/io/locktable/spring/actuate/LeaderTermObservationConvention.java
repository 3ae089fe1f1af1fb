package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a leader term. Declare a bean of this type to replace {@link
 * DefaultLeaderTermObservationConvention}.
 */
public interface LeaderTermObservationConvention extends ObservationConvention<LeaderTermObservationContext> {

    /**
     * Supports the context of a leader term.
     *
     * @param context the context
     * @return true for a {@link LeaderTermObservationContext}
     */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LeaderTermObservationContext;
    }
}
