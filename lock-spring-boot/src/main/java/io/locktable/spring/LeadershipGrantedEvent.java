package io.locktable.spring;

import io.locktable.Lease;
import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * This instance became the leader of a name. Published by the {@link LeaderRunner} after the state changed: inside a
 * listener {@link LeaderRunner#isLeader(String)} is already true, unless the lease was lost again meanwhile (a {@link
 * LeadershipRevokedEvent} then follows). A runner's events come one at a time, in order, on the thread {@code
 * locktable-events}, never on a thread that elects: a slow listener delays other listeners, not the leadership.
 *
 * <pre>{@code
 * @EventListener
 * void granted(LeadershipGrantedEvent event) {
 *     log.info("leading {} with fencing token {}", event.name(), event.lease().fencingToken());
 * }
 * }</pre>
 */
public final class LeadershipGrantedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    /** The name of the leadership. */
    private final String name;

    private final transient Lease lease;

    /**
     * Creates the event.
     *
     * @param source the runner that publishes it
     * @param name the name of the leadership
     * @param lease the lease of the term that starts
     */
    public LeadershipGrantedEvent(Object source, String name, Lease lease) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
        this.lease = Objects.requireNonNull(lease, "lease");
    }

    /** {@return the name of the leadership, which is the name of its lock} */
    public String name() {
        return name;
    }

    /** {@return the lease of the term that starts: its fencing token identifies the term} */
    public Lease lease() {
        return lease;
    }

    @Override
    public String toString() {
        return "LeadershipGrantedEvent[" + name + ", fencingToken=" + lease.fencingToken() + "]";
    }
}
