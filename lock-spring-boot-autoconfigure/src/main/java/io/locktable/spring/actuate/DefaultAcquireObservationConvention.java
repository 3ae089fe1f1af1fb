package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The default observation of an acquire: named {@value #NAME}, with the low-cardinality keys {@code lock} (see {@link
 * AcquireObservationContext#lock()}) and {@code outcome} ({@code acquired}, {@code taken_over}, {@code busy}, {@code
 * timeout}, {@code error}, {@code cancelled}; {@code unknown} while it runs), and the high-cardinality key {@code lock.name}, the name
 * itself. Through Micrometer's default handler it is a long task timer of the acquires in progress and a timer of the
 * ended ones.
 */
public class DefaultAcquireObservationConvention implements AcquireObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "locktable.acquisition";

    /** Creates the convention. */
    public DefaultAcquireObservationConvention() {}

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
     * The contextual name, for traces: {@code acquire <lock>}.
     *
     * @param context the acquire
     * @return the contextual name
     */
    @Override
    public String getContextualName(AcquireObservationContext context) {
        return "acquire " + context.lock();
    }

    /**
     * The keys {@code lock} and {@code outcome}.
     *
     * @param context the acquire
     * @return the low-cardinality key values
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(AcquireObservationContext context) {
        AcquireOutcome outcome = context.outcome();
        return KeyValues.of(
                "lock",
                context.lock(),
                "outcome",
                outcome == null ? "unknown" : outcome.name().toLowerCase(Locale.ROOT));
    }

    /**
     * The key {@code lock.name}: the lock's name.
     *
     * @param context the acquire
     * @return the high-cardinality key values
     */
    @Override
    public KeyValues getHighCardinalityKeyValues(AcquireObservationContext context) {
        return KeyValues.of("lock.name", context.name());
    }
}
