package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;

/**
 * An event of a {@link LockedRun} call, published by {@link LockedRuns}. A run's events come as {@code STARTED}, then
 * {@code LOST} if its lease was lost while the body ran (another instance may run the job from then on; the run's
 * fenced writes are refused), then {@code ENDED}, once the lock is released or kept for its minimum hold; a call that
 * did not run is {@code SKIPPED}. They are delivered in order on the thread {@code locktable-events}, never on the
 * run's: a slow listener delays other listeners, never a run, and may hear of a start after the body ended.
 *
 * <pre>{@code
 * @EventListener
 * void run(LockedRunEvent event) {
 *     switch (event.kind()) {
 *         case LOST -> log.warn("{} lost its lock ({}) while running", event.name(), event.leaseEnd().orElseThrow());
 *         case ENDED -> log.info("{} {} in {}", event.name(), event.outcome().orElseThrow(), event.duration().orElseThrow());
 *         default -> {}
 *     }
 * }
 * }</pre>
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
        /** The acquire failed (DynamoDB unreachable or an error, not a lock item, answered after a lease). */
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
        /** The lease ended while the body ran: another instance may have run the job. */
        LOST
    }

    private static final long serialVersionUID = 1L;

    private final Kind kind;
    private final String name;
    private final transient @Nullable Lease lease;
    /** The skip reason, lease end or outcome of the kind. */
    private final @Nullable Enum<?> detail;

    private final @Nullable Duration duration;
    private final transient @Nullable Throwable failure;

    private LockedRunEvent(
            Object source,
            Kind kind,
            String name,
            @Nullable Lease lease,
            @Nullable Enum<?> detail,
            @Nullable Duration duration,
            @Nullable Throwable failure) {
        super(source);
        this.kind = kind;
        this.name = name;
        this.lease = lease;
        this.detail = detail;
        this.duration = duration;
        this.failure = failure;
    }

    static LockedRunEvent started(Object source, String name, Lease lease) {
        return new LockedRunEvent(source, Kind.STARTED, name, lease, null, null, null);
    }

    static LockedRunEvent skipped(Object source, String name, SkipReason reason) {
        return new LockedRunEvent(source, Kind.SKIPPED, name, null, reason, null, null);
    }

    static LockedRunEvent lost(Object source, String name, Lease lease, LeaseEnd end) {
        return new LockedRunEvent(source, Kind.LOST, name, lease, end, null, null);
    }

    static LockedRunEvent ended(
            Object source, String name, Lease lease, Outcome outcome, Duration duration, @Nullable Throwable failure) {
        return new LockedRunEvent(source, Kind.ENDED, name, lease, outcome, duration, failure);
    }

    /** @return which event of a run this is */
    public Kind kind() {
        return kind;
    }

    /** @return the name of the lock */
    public String name() {
        return name;
    }

    /** @return the run's lease; empty for a skipped call */
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    /** @return why a {@link Kind#SKIPPED} call was skipped, else empty */
    public Optional<SkipReason> skipReason() {
        return detail instanceof SkipReason reason ? Optional.of(reason) : Optional.empty();
    }

    /**
     * @return how the lease of a {@link Kind#LOST} event ended ({@code LOST}, {@code EXPIRED}, {@code CLOSED}), else
     *     empty
     */
    public Optional<LeaseEnd> leaseEnd() {
        return detail instanceof LeaseEnd end ? Optional.of(end) : Optional.empty();
    }

    /** @return how the run of an {@link Kind#ENDED} event ended, else empty */
    public Optional<Outcome> outcome() {
        return detail instanceof Outcome ended ? Optional.of(ended) : Optional.empty();
    }

    /**
     * @return how long the body of an {@link Kind#ENDED} event ran (not counting a {@link LockedRun#minHold()}), else
     *     empty
     */
    public Optional<Duration> duration() {
        return Optional.ofNullable(duration);
    }

    /** @return what the body of an {@link Kind#ENDED} event threw, else empty */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public String toString() {
        String token = lease == null ? null : "fencingToken=" + lease.fencingToken();
        return Stream.of(kind, name, token, detail, duration)
                .filter(Objects::nonNull)
                .map(String::valueOf)
                .collect(Collectors.joining(", ", "LockedRunEvent[", "]"));
    }
}
