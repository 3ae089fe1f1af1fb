package io.locktable.spring;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The last run of a {@link LockedRun} method this instance knows of: one of its own that ended, or, when a later call
 * of this instance was skipped because the lock was held, the run the lock's item showed (read by that call's
 * acquire, so it costs no request of its own). The item keeps neither the start nor the outcome of another
 * instance's run: for one, {@code at} is when this instance saw it and there is no outcome.
 *
 * <pre>{@code
 * lockedRuns.lastRuns().forEach(run -> log.info("{} last ran on {} at {}: {}", run.name(), run.instance(), run.at(),
 *         run.outcome().map(Enum::name).orElse("still held")));
 * }</pre>
 *
 * @param name the lock's name (evaluated, for a name with {@code #{...}} parts)
 * @param instance where it ran: the readable name ({@code locktable.holder}) of the instance that held the lock, or
 *     its owner id when it set none
 * @param fencingToken the fencing token of the run's lease
 * @param at for a run of this instance, when it took its lock; for another's, when a call of this instance found it
 *     held
 * @param endedAt for a run of this instance, when its body ended; empty for another's
 * @param outcome for a run of this instance, how it ended; empty for another's
 */
public record LastLockedRun(
        String name,
        String instance,
        long fencingToken,
        Instant at,
        Optional<Instant> endedAt,
        Optional<LockedRunEvent.Outcome> outcome) {

    /** Checks that no component is null. */
    public LastLockedRun {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(endedAt, "endedAt");
        Objects.requireNonNull(outcome, "outcome");
    }
}
