package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a {@code @LockedRun} call. Declare a bean of this type to replace {@link
 * DefaultLockedRunObservationConvention}.
 */
public interface LockedRunObservationConvention extends ObservationConvention<LockedRunObservationContext> {

    /**
     * Supports the context of a {@code @LockedRun} call.
     *
     * @param context the context
     * @return true for a {@link LockedRunObservationContext}
     */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockedRunObservationContext;
    }
}
