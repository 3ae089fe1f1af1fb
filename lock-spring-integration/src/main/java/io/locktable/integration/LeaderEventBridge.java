package io.locktable.integration;

import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LeadershipGrantedEvent;
import io.locktable.spring.LeadershipRevokedEvent;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * Publishes Spring Integration's leader events from the starter's {@link LeaderRunner}: an {@link OnGrantedEvent} for
 * each {@link LeadershipGrantedEvent} and an {@link OnRevokedEvent} for each {@link LeadershipRevokedEvent}, so that
 * listeners written for Spring Integration's leader initiators hear the {@code @LeaderOnly} leaderships too.
 *
 * <pre>{@code
 * @EventListener
 * void granted(OnGrantedEvent event) {
 *     log.info("leading {}", event.getRole());     // the name of the leadership
 *     event.getContext().yield();                   // steps down, as LeaderRunner.yieldAsync(name)
 * }
 * }</pre>
 *
 * <p>With the starter and Spring Integration on the class path it is auto-configured. The events' source is the
 * runner, their role the leadership's name; their {@link Context} answers {@link Context#isLeader()} from the runner
 * at the moment it is asked (true inside a granted listener unless the lease was lost again meanwhile; false inside a
 * revoked one), and {@link Context#yield()} steps down with {@link LeaderRunner#yieldAsync(String)}: it returns at
 * once, as Spring Integration's contexts do, so a listener on the runner's event thread never waits for itself.
 * Events are published on the runner's event thread, in the order of the runner's own.
 */
public final class LeaderEventBridge implements SmartApplicationListener {

    private static final Logger log = LoggerFactory.getLogger(LeaderEventBridge.class);

    private final LeaderEventPublisher publisher;

    /**
     * A bridge that publishes through Spring Integration's publisher, usually a {@code DefaultLeaderEventPublisher}
     * over the application context.
     *
     * @param publisher the publisher of Spring Integration's leader events
     */
    public LeaderEventBridge(LeaderEventPublisher publisher) {
        this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    /**
     * Tells which events this bridge hears: the starter's two leadership events.
     *
     * @param eventType the type of an event
     * @return true for {@link LeadershipGrantedEvent} and {@link LeadershipRevokedEvent}
     */
    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return LeadershipGrantedEvent.class.isAssignableFrom(eventType)
                || LeadershipRevokedEvent.class.isAssignableFrom(eventType);
    }

    /**
     * Publishes Spring Integration's event for a leadership event of a {@link LeaderRunner}; events of other sources
     * are left alone.
     *
     * @param event the starter's event
     */
    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (!(event.getSource() instanceof LeaderRunner runner)) {
            return;
        }
        if (event instanceof LeadershipGrantedEvent granted) {
            publisher.publishOnGranted(runner, new RunnerContext(runner, granted.name()), granted.name());
        } else if (event instanceof LeadershipRevokedEvent revoked) {
            publisher.publishOnRevoked(runner, new RunnerContext(runner, revoked.name()), revoked.name());
        }
    }

    @Override
    public String toString() {
        return "LeaderEventBridge[" + publisher + "]";
    }

    /** A leadership of the runner, as Spring Integration's listeners see it. */
    private record RunnerContext(LeaderRunner runner, String name) implements Context {

        @Override
        public boolean isLeader() {
            return runner.isLeader(name);
        }

        @Override
        public void yield() {
            runner.yieldAsync(name).whenComplete((ignored, error) -> {
                if (error != null) {
                    log.warn("Stepping down from leadership '{}' failed: {}", name, error.toString());
                }
            });
        }

        @Override
        public String getRole() {
            return name;
        }

        @Override
        public String toString() {
            return "LeaderRunnerContext{role=" + name + ", isLeader=" + isLeader() + "}";
        }
    }
}
