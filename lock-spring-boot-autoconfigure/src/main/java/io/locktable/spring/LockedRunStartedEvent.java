package io.locktable.spring;

import io.locktable.Lease;
import java.util.Objects;

/**
 * A {@link LockedRun} call took its lock and its body starts. Published by {@link LockedRuns}; a {@link
 * LockedRunEndedEvent} of the same lease always follows, after a {@link LockedRunLostEvent} if the lease was lost.
 *
 * <pre>{@code
 * @EventListener
 * void started(LockedRunStartedEvent event) {
 *     log.info("{} runs with fencing token {}", event.name(), event.lease().fencingToken());
 * }
 * }</pre>
 *
 * <p>Delivered on the thread {@code locktable-events}, never on the run's thread, so a listener may hear of it
 * after the body started, or even ended (see {@link LockedRunEvent}).
 */
public final class LockedRunStartedEvent extends LockedRunEvent {

    /** The serialization version. */
    private static final long serialVersionUID = 1L;

    private final transient Lease lease;

    /**
     * Creates the event.
     *
     * @param source the {@link LockedRuns} that publishes it
     * @param name the name of the lock
     * @param lease the run's lease
     */
    public LockedRunStartedEvent(Object source, String name, Lease lease) {
        super(source, name);
        this.lease = Objects.requireNonNull(lease, "lease");
    }

    /**
     * The run's lease: its fencing token identifies the run.
     *
     * @return the lease
     */
    public Lease lease() {
        return lease;
    }

    @Override
    public String toString() {
        return "LockedRunStartedEvent[" + name() + ", fencingToken=" + lease.fencingToken() + "]";
    }
}
