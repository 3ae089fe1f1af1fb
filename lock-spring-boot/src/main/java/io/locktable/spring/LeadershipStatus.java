package io.locktable.spring;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A read-only snapshot of one leadership of a {@link LeaderRunner}, for endpoints, meters and health.
 *
 * <pre>{@code
 * runner.status("order-sweeper").ifPresent(s -> log.info("{} is {} after {} terms", s.name(), s.state(), s.terms()));
 * }</pre>
 *
 * @param name the name of the leadership, which is the name of its lock
 * @param state whether this instance leads, follows, or has stopped contending
 * @param terms how many terms this instance has won since the runner was created
 * @param lastError the last error of the leadership (an acquire or renewal that failed), as {@code
 *     Throwable.toString()}; empty if there was none
 * @param lastErrorAt when the last error happened, on the wall clock; empty if there was none
 */
public record LeadershipStatus(
        String name, LeadershipState state, long terms, Optional<String> lastError, Optional<Instant> lastErrorAt) {

    /** Checks that no component is null. */
    public LeadershipStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(lastError, "lastError");
        Objects.requireNonNull(lastErrorAt, "lastErrorAt");
    }
}
