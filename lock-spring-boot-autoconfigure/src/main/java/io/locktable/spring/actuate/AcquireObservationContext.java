package io.locktable.spring.actuate;

import io.locktable.AcquireOutcome;
import io.micrometer.observation.Observation;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link AcquireObservationConvention} sees of one acquire: a call of {@code tryAcquire} or {@code acquire},
 * or a leadership's contention, from its start to its outcome.
 */
public final class AcquireObservationContext extends Observation.Context {

    private final String name;
    private final String lock;
    private volatile @Nullable AcquireOutcome outcome;

    /**
     * Creates the context of an acquire.
     *
     * @param name the lock's name
     * @param lock the name to tag it with: the name of a leadership or of a {@code @LockedRun} method, the declared
     *     template for a name a {@code @LockedRun} call evaluated from one, else {@value LockTableMetrics#OTHER}
     */
    public AcquireObservationContext(String name, String lock) {
        this.name = Objects.requireNonNull(name, "name");
        this.lock = Objects.requireNonNull(lock, "lock");
    }

    /**
     * The lock's name.
     *
     * @return the name, as the acquire asked for it
     */
    public String name() {
        return name;
    }

    /**
     * The name to tag the lock with, of bounded variety.
     *
     * @return the name, its template, or {@value LockTableMetrics#OTHER}
     */
    public String lock() {
        return lock;
    }

    /**
     * How the acquire ended.
     *
     * @return the outcome, null until it ended
     */
    public @Nullable AcquireOutcome outcome() {
        return outcome;
    }

    void outcome(AcquireOutcome outcome) {
        this.outcome = outcome;
    }
}
