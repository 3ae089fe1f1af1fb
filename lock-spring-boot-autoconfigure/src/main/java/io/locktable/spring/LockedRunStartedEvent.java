package io.locktable.spring;

import io.locktable.Lease;
import java.util.Objects;
import org.springframework.context.ApplicationEvent;

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
 * <p>The events of the runs are delivered one at a time, in the order they happened, on the thread {@code
 * locktable-run-events}, never on the run's thread: a slow listener delays other listeners, never a run or a lock.
 * So a listener may see this event after the body started, or even ended.
 */
public final class LockedRunStartedEvent extends ApplicationEvent {

    /** The serialization version. */
    private static final long serialVersionUID = 1L;

    /** The name of the lock. */
    private final String name;

    private final transient Lease lease;

    /**
     * Creates the event.
     *
     * @param source the {@link LockedRuns} that publishes it
     * @param name the name of the lock
     * @param lease the run's lease
     */
    public LockedRunStartedEvent(Object source, String name, Lease lease) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
        this.lease = Objects.requireNonNull(lease, "lease");
    }

    /**
     * The name of the lock.
     *
     * @return the name
     */
    public String name() {
        return name;
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
        return "LockedRunStartedEvent[" + name + ", fencingToken=" + lease.fencingToken() + "]";
    }
}
