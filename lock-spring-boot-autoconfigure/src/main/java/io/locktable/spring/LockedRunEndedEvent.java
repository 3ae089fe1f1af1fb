package io.locktable.spring;

import io.locktable.Lease;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of a {@link LockedRun} run ended: it returned, threw, or ran on after its lease was lost. Published by
 * {@link LockedRuns} on the thread {@code locktable-events} (see {@link LockedRunStartedEvent}), last of the
 * run's events. When it is published the lock has been released, or is kept until the run's {@link
 * LockedRun#minHold()}.
 *
 * <pre>{@code
 * @EventListener
 * void ended(LockedRunEndedEvent event) {
 *     log.info("{} {} in {}", event.name(), event.outcome(), event.duration());
 * }
 * }</pre>
 */
public final class LockedRunEndedEvent extends LockedRunEvent {

    /** How a run ended. */
    public enum Outcome {
        /** The body returned, and the lease was held to the end. */
        COMPLETED,
        /** The body threw, and the lease was held to the end. */
        FAILED,
        /** The lease ended while the body ran, whatever the body did then: another instance may have run the job. */
        LOST
    }

    /** The serialization version. */
    private static final long serialVersionUID = 1L;

    /** How the run ended. */
    private final Outcome outcome;

    /** How long the body ran. */
    private final Duration duration;

    private final transient Lease lease;
    private final transient Throwable failure;

    /**
     * Creates the event.
     *
     * @param source the {@link LockedRuns} that publishes it
     * @param name the name of the lock
     * @param lease the run's lease
     * @param outcome how the run ended
     * @param duration how long the body ran, on the monotonic clock
     * @param failure what the body threw, or null
     */
    public LockedRunEndedEvent(
            Object source, String name, Lease lease, Outcome outcome, Duration duration, Throwable failure) {
        super(source, name);
        this.lease = Objects.requireNonNull(lease, "lease");
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        this.duration = Objects.requireNonNull(duration, "duration");
        this.failure = failure;
    }

    /**
     * The run's lease.
     *
     * @return the lease
     */
    public Lease lease() {
        return lease;
    }

    /**
     * How the run ended.
     *
     * @return the outcome
     */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * How long the body ran, on the monotonic clock: not the time the lock was held, which a {@link
     * LockedRun#minHold()} may make longer.
     *
     * @return the duration
     */
    public Duration duration() {
        return duration;
    }

    /**
     * What the body threw.
     *
     * @return the exception or error, or empty when the body returned
     */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public String toString() {
        return "LockedRunEndedEvent[" + name() + ", fencingToken=" + lease.fencingToken() + ", " + outcome + ", "
                + duration + "]";
    }
}
