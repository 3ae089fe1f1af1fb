package io.locktable.spring;

import java.util.Objects;

/**
 * A {@link LockedRun} call was skipped: its body did not run. Published by {@link LockedRuns} on the thread {@code
 * locktable-events} (see {@link LockedRunStartedEvent}).
 *
 * <pre>{@code
 * @EventListener
 * void skipped(LockedRunSkippedEvent event) {
 *     if (event.reason() == LockedRunSkippedEvent.Reason.ERROR) {
 *         log.warn("{} could not take its lock", event.name());
 *     }
 * }
 * }</pre>
 */
public final class LockedRunSkippedEvent extends LockedRunEvent {

    /** Why a call was skipped. */
    public enum Reason {
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

    /** The serialization version. */
    private static final long serialVersionUID = 1L;

    /** Why the call was skipped. */
    private final Reason reason;

    /**
     * Creates the event.
     *
     * @param source the {@link LockedRuns} that publishes it
     * @param name the name of the lock
     * @param reason why the call was skipped
     */
    public LockedRunSkippedEvent(Object source, String name, Reason reason) {
        super(source, name);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * Why the call was skipped.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LockedRunSkippedEvent[" + name() + ", " + reason + "]";
    }
}
