package io.locktable.test;

import org.junit.jupiter.api.Assumptions;

/** Skips a test, with the reason printed, on an engine that lacks what it needs. */
public final class EngineAssumptions {

    private EngineAssumptions() {}

    /**
     * Skips the calling test unless the engine has the capability.
     *
     * <pre>{@code
     * EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
     * }</pre>
     *
     * @param engine the engine
     * @param capability what the test needs
     */
    public static void assumeCapability(DynamoDbEngine engine, EngineCapability capability) {
        Assumptions.assumeTrue(
                engine.supports(capability), () -> "engine " + engine.name() + " has no " + capability + ": skipped");
    }
}
