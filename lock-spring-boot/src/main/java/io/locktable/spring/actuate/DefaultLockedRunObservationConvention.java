package io.locktable.spring.actuate;

import io.micrometer.common.KeyValues;

/**
 * The default observation of a {@code @LockedRun} call: named {@value #NAME}, contextual name {@code locked run
 * <declared name>}, low-cardinality keys {@code lock} (the name as declared, a template for a name with {@code #{...}}
 * parts) and {@code outcome} ({@code completed}, {@code failed}, {@code lost}, as the run's {@code LockedRunEvent.Outcome}, or {@code skipped}; absent while it
 * runs), high-cardinality key {@code lock.name} (the name the call evaluated). Extend it to change a part.
 */
public class DefaultLockedRunObservationConvention implements LockedRunObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "locktable.locked.run";

    /** Creates the convention. */
    public DefaultLockedRunObservationConvention() {}

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "locked run " + context.lock();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        return DefaultAcquireObservationConvention.lockAndOutcome(context);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of("lock.name", context.name());
    }
}
