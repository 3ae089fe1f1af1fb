package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of a {@code @LockedRun} call. Declare a bean of this type to replace {@link DefaultLockedRunObservationConvention}. */
public interface LockedRunObservationConvention extends ObservationConvention<LockObservationContext> {

    /** {@return whether the context is one of a {@code @LockedRun} call} */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext lock && lock.kind() == LockObservationContext.Kind.LOCKED_RUN;
    }
}
