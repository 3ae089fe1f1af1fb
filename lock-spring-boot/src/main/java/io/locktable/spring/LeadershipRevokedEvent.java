package io.locktable.spring;

import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * This instance stopped leading a name: its lease was lost or expired, it yielded, or the runner stopped. Published
 * by the {@link LeaderRunner} after the state changed (inside a listener {@link LeaderRunner#isLeader(String)} is
 * already false), after the {@link LeadershipGrantedEvent} of the same term, on the same thread.
 *
 * <pre>{@code
 * @EventListener
 * void revoked(LeadershipRevokedEvent event) {
 *     log.info("no longer leading {}", event.name());
 * }
 * }</pre>
 */
public final class LeadershipRevokedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    /** The name of the leadership. */
    private final String name;

    /**
     * Creates the event.
     *
     * @param source the runner that publishes it
     * @param name the name of the leadership
     */
    public LeadershipRevokedEvent(Object source, String name) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
    }

    /** {@return the name of the leadership, which is the name of its lock} */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[" + name + "]";
    }
}
