package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of an acquire. Declare a bean of this type to replace {@link
 * DefaultAcquireObservationConvention}.
 */
public interface AcquireObservationConvention extends ObservationConvention<AcquireObservationContext> {

    /**
     * Supports the context of an acquire.
     *
     * @param context the context
     * @return true for an {@link AcquireObservationContext}
     */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof AcquireObservationContext;
    }
}
