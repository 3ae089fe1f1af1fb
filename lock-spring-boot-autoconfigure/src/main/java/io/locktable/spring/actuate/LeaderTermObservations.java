package io.locktable.spring.actuate;

import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LeadershipGrantedEvent;
import io.locktable.spring.LeadershipRevokedEvent;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;

/**
 * Observes the leader terms of a {@link LeaderRunner} with Micrometer's Observation API: an observation starts
 * when this instance is granted a leadership ({@link LeadershipGrantedEvent}) and stops when it is revoked ({@link
 * LeadershipRevokedEvent}), or when the context closes. Named and tagged by a {@link
 * LeaderTermObservationConvention} ({@link DefaultLeaderTermObservationConvention} unless one is given). The events
 * come on the runner's event thread, never on an election thread. Thread-safe.
 */
public final class LeaderTermObservations implements ApplicationListener<ApplicationEvent>, DisposableBean {

    private static final LeaderTermObservationConvention DEFAULT = new DefaultLeaderTermObservationConvention();

    private final ObservationRegistry registry;
    private final LeaderTermObservationConvention convention;
    private final Map<String, Observation> terms = new ConcurrentHashMap<>();

    /**
     * Creates the observer.
     *
     * @param registry the registry the observations go to
     * @param convention the convention that replaces the default one, or null for the default one
     */
    public LeaderTermObservations(ObservationRegistry registry, LeaderTermObservationConvention convention) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.convention = convention;
    }

    /**
     * Starts or stops the observation of a term.
     *
     * @param event a leadership event; other events are ignored
     */
    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof LeadershipGrantedEvent granted) {
            LeaderTermObservationContext context = new LeaderTermObservationContext(
                    granted.name(), granted.lease().fencingToken());
            Observation term = Observation.createNotStarted(convention, DEFAULT, () -> context, registry)
                    .start();
            Observation previous = terms.put(granted.name(), term);
            if (previous != null) {
                previous.stop(); // a revocation that never came (an event dropped at a stop)
            }
        } else if (event instanceof LeadershipRevokedEvent revoked) {
            Observation term = terms.remove(revoked.name());
            if (term != null) {
                term.stop();
            }
        }
    }

    /** Stops the observations of the terms still open; called by the context when it closes. */
    @Override
    public void destroy() {
        terms.keySet().forEach(name -> {
            Observation term = terms.remove(name);
            if (term != null) {
                term.stop();
            }
        });
    }
}
