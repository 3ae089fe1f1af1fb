package io.locktable.spring.actuate;

import io.micrometer.common.KeyValues;

/**
 * The default observation of an acquire: named {@value #NAME}, contextual name {@code acquire <lock>}, low-cardinality
 * keys {@code lock} ({@link LockObservationContext#lock()}) and {@code outcome} ({@code acquired}, {@code taken_over},
 * {@code busy}, {@code timeout}, {@code error}, {@code cancelled}; absent while it runs, so a handler that reads the
 * keys at the start, such as a long task timer, never sees an outcome not known yet), high-cardinality key {@code
 * lock.name}. Extend it to change a part.
 */
public class DefaultAcquireObservationConvention implements AcquireObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "locktable.acquisition";

    /** Creates the convention. */
    public DefaultAcquireObservationConvention() {}

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "acquire " + context.lock();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        return lockAndOutcome(context);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of("lock.name", context.name());
    }

    static KeyValues lockAndOutcome(LockObservationContext context) {
        String outcome = context.outcome();
        KeyValues lock = KeyValues.of("lock", context.lock());
        return outcome == null ? lock : lock.and("outcome", outcome);
    }
}
