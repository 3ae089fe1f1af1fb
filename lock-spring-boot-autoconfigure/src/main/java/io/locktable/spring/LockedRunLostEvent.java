package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import java.util.Objects;

/**
 * A {@link LockedRun} run lost its lease while its body was still running: another holder took the lock, or the
 * lease ran out because no renewal succeeded within it, or the lock table closed. From then on another instance may
 * run the same job; the run's fenced writes are refused. Published by {@link LockedRuns} on the thread {@code
 * locktable-events} (see {@link LockedRunStartedEvent}), after the run's {@link LockedRunStartedEvent} and before
 * its {@link LockedRunEndedEvent}. The run's thread has been interrupted already when its {@link
 * LockedRun#interruptOnLoss()} says so.
 *
 * <pre>{@code
 * @EventListener
 * void lost(LockedRunLostEvent event) {
 *     log.warn("{} lost its lock ({}) while running", event.name(), event.reason());
 * }
 * }</pre>
 */
public final class LockedRunLostEvent extends LockedRunEvent {

    /** The serialization version. */
    private static final long serialVersionUID = 1L;

    /** How the lease ended. */
    private final LeaseEnd reason;

    private final transient Lease lease;

    /**
     * Creates the event.
     *
     * @param source the {@link LockedRuns} that publishes it
     * @param name the name of the lock
     * @param lease the run's lease, which has ended
     * @param reason how it ended: {@link LeaseEnd#LOST}, {@link LeaseEnd#EXPIRED} or {@link LeaseEnd#CLOSED}
     */
    public LockedRunLostEvent(Object source, String name, Lease lease, LeaseEnd reason) {
        super(source, name);
        this.lease = Objects.requireNonNull(lease, "lease");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * The run's lease, which has ended.
     *
     * @return the lease
     */
    public Lease lease() {
        return lease;
    }

    /**
     * How the lease ended.
     *
     * @return {@link LeaseEnd#LOST}, {@link LeaseEnd#EXPIRED} or {@link LeaseEnd#CLOSED}
     */
    public LeaseEnd reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LockedRunLostEvent[" + name() + ", fencingToken=" + lease.fencingToken() + ", " + reason + "]";
    }
}
