package io.locktable.spring.actuate;

import io.micrometer.observation.Observation;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** What a convention sees of one observation of {@link LockObservations}: an acquire, a run or a leader term. */
public final class LockObservationContext extends Observation.Context {

    /** What is observed. */
    public enum Kind {
        /** A call of {@code tryAcquire} or {@code acquire}, or a leadership's contention, the wait included. */
        ACQUIRE,
        /** A call of a {@code @LockedRun} method, from before its lock is asked for to its end. */
        LOCKED_RUN,
        /** A leader term, from the grant to the revocation. */
        LEADER_TERM
    }

    private final Kind kind;
    private final String name;
    private final String lock;
    private final long fencingToken;
    private volatile @Nullable String outcome;

    /**
     * Creates a context.
     *
     * @param kind what is observed
     * @param name the lock's name, as the call asked for or evaluated it
     * @param lock the name to tag it with, of bounded variety (see {@link #lock()})
     * @param fencingToken the term's fencing token; 0 for the other kinds
     */
    public LockObservationContext(Kind kind, String name, String lock, long fencingToken) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.name = Objects.requireNonNull(name, "name");
        this.lock = Objects.requireNonNull(lock, "lock");
        this.fencingToken = fencingToken;
    }

    /** {@return what is observed} */
    public Kind kind() {
        return kind;
    }

    /** {@return the lock's name, as the call asked for or evaluated it} */
    public String name() {
        return name;
    }

    /**
     * {@return the tag of the lock, of bounded variety: for an acquire, as the meters tag it (see {@link
     * LockTableMetrics}); for a run, its name as declared; for a term, the leadership's name}
     */
    public String lock() {
        return lock;
    }

    /** {@return the term's fencing token; 0 for the other kinds} */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * {@return how it ended, in lower case: an {@code AcquireOutcome}, a {@code LockedRunEvent.Outcome} or {@code
     * skipped}; null before}
     */
    public @Nullable String outcome() {
        return outcome;
    }

    void outcome(Enum<?> outcome) {
        outcome(outcome.name());
    }

    void outcome(String outcome) {
        this.outcome = outcome.toLowerCase(Locale.ROOT);
    }
}
