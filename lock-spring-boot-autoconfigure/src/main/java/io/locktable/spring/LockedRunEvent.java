package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;

/**
 * An event of a {@link LockedRun} call, published by {@link LockedRuns}; its {@link #kind()} says which:
 *
 * <ul>
 *   <li>{@link Kind#STARTED}: the call took its lock and its body starts; an {@code ENDED} event of the same lease
 *       always follows, after a {@code LOST} one if the lease was lost.
 *   <li>{@link Kind#SKIPPED}: the body did not run, for the {@link #skipReason()}.
 *   <li>{@link Kind#LOST}: the run lost its lease while its body was still running ({@link #leaseEnd()}): another
 *       holder took the lock, or the lease ran out because no renewal succeeded within it, or the lock table closed.
 *       From then on another instance may run the same job; the run's fenced writes are refused. The run's thread
 *       has been interrupted already when its {@link LockedRun#interruptOnLoss()} says so.
 *   <li>{@link Kind#ENDED}: the body returned, threw, or ran on after its lease was lost ({@link #outcome()}, {@link
 *       #duration()}, {@link #failure()}), last of the run's events. The lock has been released by then, or is kept
 *       until the run's {@link LockedRun#minHold()}.
 * </ul>
 *
 * <pre>{@code
 * @EventListener
 * void run(LockedRunEvent event) {
 *     switch (event.kind()) {
 *         case SKIPPED -> { if (event.skipReason().orElseThrow() == SkipReason.ERROR) log.warn("{} failed", event.name()); }
 *         case LOST -> log.warn("{} lost its lock ({}) while running", event.name(), event.leaseEnd().orElseThrow());
 *         case ENDED -> log.info("{} {} in {}", event.name(), event.outcome().orElseThrow(), event.duration().orElseThrow());
 *         default -> {}
 *     }
 * }
 * }</pre>
 *
 * <p>The events of the runs are delivered one at a time, in the order they happened, on the thread {@code
 * locktable-events}, never on the run's thread: a slow listener delays other listeners, never a run or a lock. So a
 * listener may hear of a run's start after its body started, or even ended. A run's events come as started, then
 * lost if its lease was lost while the body ran, then ended.
 */
public final class LockedRunEvent extends ApplicationEvent {

    /** Which event of a run. */
    public enum Kind {
        /** The call took its lock and its body starts. */
        STARTED,
        /** The call was skipped: its body did not run. */
        SKIPPED,
        /** The run lost its lease while its body was still running. */
        LOST,
        /** The body of the run ended. */
        ENDED
    }

    /** Why a call was skipped. */
    public enum SkipReason {
        /** Another instance, or another call of this one, holds the lock: the usual case. */
        BUSY,
        /**
         * The acquire failed: DynamoDB could not be reached or answered an error, the item at the lock's key is not
         * a lock item, or the answer came after a whole lease.
         */
        ERROR,
        /** The application is stopping: no new run starts. */
        STOPPED
    }

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

    private final Kind kind;
    private final String name;
    private final transient @Nullable Lease lease;
    private final @Nullable SkipReason skipReason;
    private final @Nullable LeaseEnd leaseEnd;
    private final @Nullable Outcome outcome;
    private final @Nullable Duration duration;
    private final transient @Nullable Throwable failure;

    private LockedRunEvent(
            Object source,
            Kind kind,
            String name,
            @Nullable Lease lease,
            @Nullable SkipReason skipReason,
            @Nullable LeaseEnd leaseEnd,
            @Nullable Outcome outcome,
            @Nullable Duration duration,
            @Nullable Throwable failure) {
        super(source);
        this.kind = kind;
        this.name = Objects.requireNonNull(name, "name");
        this.lease = lease;
        this.skipReason = skipReason;
        this.leaseEnd = leaseEnd;
        this.outcome = outcome;
        this.duration = duration;
        this.failure = failure;
    }

    static LockedRunEvent started(Object source, String name, Lease lease) {
        return new LockedRunEvent(source, Kind.STARTED, name, lease, null, null, null, null, null);
    }

    static LockedRunEvent skipped(Object source, String name, SkipReason reason) {
        return new LockedRunEvent(source, Kind.SKIPPED, name, null, reason, null, null, null, null);
    }

    static LockedRunEvent lost(Object source, String name, Lease lease, LeaseEnd end) {
        return new LockedRunEvent(source, Kind.LOST, name, lease, null, end, null, null, null);
    }

    static LockedRunEvent ended(
            Object source, String name, Lease lease, Outcome outcome, Duration duration, @Nullable Throwable failure) {
        return new LockedRunEvent(source, Kind.ENDED, name, lease, null, null, outcome, duration, failure);
    }

    /**
     * Which event of a run this is.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
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
     * The run's lease.
     *
     * @return the lease; empty for a skipped call, which has none
     */
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    /**
     * Why the call was skipped.
     *
     * @return the reason of a {@link Kind#SKIPPED} event, else empty
     */
    public Optional<SkipReason> skipReason() {
        return Optional.ofNullable(skipReason);
    }

    /**
     * How the lease ended while the body ran: {@link LeaseEnd#LOST}, {@link LeaseEnd#EXPIRED} or {@link
     * LeaseEnd#CLOSED}.
     *
     * @return the end of a {@link Kind#LOST} event's lease, else empty
     */
    public Optional<LeaseEnd> leaseEnd() {
        return Optional.ofNullable(leaseEnd);
    }

    /**
     * How the run ended.
     *
     * @return the outcome of an {@link Kind#ENDED} event, else empty
     */
    public Optional<Outcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    /**
     * How long the body ran, on the monotonic clock: not the time the lock was held, which a {@link
     * LockedRun#minHold()} may make longer.
     *
     * @return the duration of an {@link Kind#ENDED} event's run, else empty
     */
    public Optional<Duration> duration() {
        return Optional.ofNullable(duration);
    }

    /**
     * What the body threw.
     *
     * @return the exception or error of an {@link Kind#ENDED} event whose body threw, else empty
     */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public String toString() {
        StringBuilder text =
                new StringBuilder("LockedRunEvent[").append(kind).append(", ").append(name);
        if (lease != null) {
            text.append(", fencingToken=").append(lease.fencingToken());
        }
        for (Object detail : new Object[] {skipReason, leaseEnd, outcome, duration}) {
            if (detail != null) {
                text.append(", ").append(detail);
            }
        }
        return text.append(']').toString();
    }
}
