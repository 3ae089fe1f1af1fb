package io.locktable.spring;

import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * An event of a {@link LockedRun} call, published by {@link LockedRuns}: {@link LockedRunStartedEvent}, {@link
 * LockedRunSkippedEvent}, {@link LockedRunLostEvent} or {@link LockedRunEndedEvent}. A listener of this type hears
 * them all.
 *
 * <pre>{@code
 * @EventListener
 * void run(LockedRunEvent event) {
 *     log.debug("{}", event);
 * }
 * }</pre>
 *
 * <p>The events of the runs are delivered one at a time, in the order they happened, on the thread {@code
 * locktable-events}, never on the run's thread: a slow listener delays other listeners, never a run or a lock.
 * So a listener may hear of a run's start after its body started, or even ended. A run's events come as started,
 * then lost if its lease was lost while the body ran, then ended.
 */
public abstract class LockedRunEvent extends ApplicationEvent {

    /** The serialization version. */
    private static final long serialVersionUID = 1L;

    /** The name of the lock. */
    private final String name;

    /**
     * Creates the event.
     *
     * @param source the {@link LockedRuns} that publishes it
     * @param name the name of the lock
     */
    LockedRunEvent(Object source, String name) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * The name of the lock.
     *
     * @return the name
     */
    public String name() {
        return name;
    }
}
