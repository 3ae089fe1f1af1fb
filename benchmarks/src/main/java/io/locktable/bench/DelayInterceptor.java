package io.locktable.bench;

import java.time.Duration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Holds every request back before it is sent, as a stand-in for the network round trip to DynamoDB that dynalite on
 * loopback does not have.
 */
public final class DelayInterceptor implements ExecutionInterceptor {

    private final long millis;

    /**
     * Creates the interceptor.
     *
     * @param delay the delay of every request
     */
    public DelayInterceptor(Duration delay) {
        this.millis = delay.toMillis();
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        Machine.sleep(millis);
    }
}
