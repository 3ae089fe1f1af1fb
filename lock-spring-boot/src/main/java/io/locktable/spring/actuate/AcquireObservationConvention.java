package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of an acquire. Declare a bean of this type to replace {@link DefaultAcquireObservationConvention}. */
public interface AcquireObservationConvention extends ObservationConvention<LockObservationContext> {

    /** {@return whether the context is one of an acquire} */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext lock && lock.kind() == LockObservationContext.Kind.ACQUIRE;
    }
}
