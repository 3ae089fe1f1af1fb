package io.locktable;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;

/**
 * Captures the caller's context with Micrometer's context propagation: every thread local registered with its {@code
 * ContextRegistry} (the current {@code Observation}, a tracer's span, the MDC where registered, {@link
 * Lease#current()}). Loaded only by a table told to propagate ({@link LockTable.Builder#propagateContextToListeners}),
 * so that a table that is not runs without context-propagation on the class path.
 */
final class PropagatedContext {

    /**
     * Over the global registry, where the libraries' accessors register themselves; the event thread's own values are
     * left alone where the snapshot has none, as the thread is the table's and has none of its own.
     */
    private static final ContextSnapshotFactory SNAPSHOTS =
            ContextSnapshotFactory.builder().build();

    private PropagatedContext() {}

    /** {@return the calling thread's context, for the listener calls of its acquire} */
    static CallerContext capture() {
        ContextSnapshot snapshot = SNAPSHOTS.captureAll();
        return snapshot::wrap;
    }
}
