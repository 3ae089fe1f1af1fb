package io.locktable.spring.actuate;

import io.locktable.spring.LockedRunObserver;
import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The default observation of a {@code @LockedRun} call: named {@value #NAME}, with the low-cardinality keys {@code
 * lock} (the name as declared, a template for a name with {@code #{...}} parts) and {@code outcome} ({@code ran},
 * {@code skipped}, {@code lost}, {@code failed}; {@code unknown} while it runs), and the high-cardinality key {@code
 * lock.name}, the name the call evaluated. Through Micrometer's default handler it is a long task timer of the calls
 * in progress and a timer of the ended ones.
 */
public class DefaultLockedRunObservationConvention implements LockedRunObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "locktable.locked.run";

    /** Creates the convention. */
    public DefaultLockedRunObservationConvention() {}

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
     * The contextual name, for traces: {@code locked run <declared name>}.
     *
     * @param context the call
     * @return the contextual name
     */
    @Override
    public String getContextualName(LockedRunObservationContext context) {
        return "locked run " + context.declaredName();
    }

    /**
     * The keys {@code lock} and {@code outcome}.
     *
     * @param context the call
     * @return the low-cardinality key values
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(LockedRunObservationContext context) {
        LockedRunObserver.Outcome outcome = context.outcome();
        return KeyValues.of(
                "lock",
                context.declaredName(),
                "outcome",
                outcome == null ? "unknown" : outcome.name().toLowerCase(Locale.ROOT));
    }

    /**
     * The key {@code lock.name}: the name the call evaluated.
     *
     * @param context the call
     * @return the high-cardinality key values
     */
    @Override
    public KeyValues getHighCardinalityKeyValues(LockedRunObservationContext context) {
        return KeyValues.of("lock.name", context.name());
    }
}
