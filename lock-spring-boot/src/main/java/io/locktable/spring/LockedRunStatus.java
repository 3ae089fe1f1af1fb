package io.locktable.spring;

import java.time.Instant;

/**
 * A {@link LockedRun} run whose body is running now on this instance, for endpoints and logs.
 *
 * <pre>{@code
 * lockedRuns.running().forEach(run -> log.info("{} since {}", run.name(), run.startedAt()));
 * }</pre>
 *
 * @param name the name of the lock
 * @param fencingToken the fencing token of the run's lease
 * @param startedAt when the run took its lock, on the wall clock
 */
public record LockedRunStatus(String name, long fencingToken, Instant startedAt) {}
