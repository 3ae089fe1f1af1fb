package io.locktable.verification;

import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * A pause of the process after every check the library makes on the caller's thread and before the write leaves it:
 * the garbage collection between {@code isHeld()} and the write that only the table's own condition can catch. Armed
 * for one write; runs the pause on the writing thread just before the request is transmitted.
 */
final class PauseInsideWrite implements ExecutionInterceptor {

    private static final Set<String> WRITES = Set.of("PutItem", "TransactWriteItems");

    private final AtomicReference<Runnable> armed = new AtomicReference<>();

    /** The next write of this client pauses this way before it is sent. */
    void arm(Runnable pause) {
        armed.set(pause);
    }

    /** Drops a pause whose write was never sent; true if there was one. */
    boolean armedAndDropped() {
        return armed.getAndSet(null) != null;
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (WRITES.contains(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
            Runnable pause = armed.getAndSet(null);
            if (pause != null) {
                pause.run();
            }
        }
    }
}
