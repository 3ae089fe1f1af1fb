package io.locktable.spring;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Who leads a name of a {@link LeaderRunner}, as this instance last knew it: itself while it leads; otherwise the
 * holder its last read of the lock's item showed (a follower reads it at each poll, every third of the holder's
 * lease, at most every 10 s), so at most one poll old. The item keeps no time: {@code since} is when this instance
 * first saw the term.
 *
 * <pre>{@code
 * runner.leader("order-sweeper").ifPresent(l -> log.info("{} leads since {}", l.holder().orElse(l.owner()), l.since()));
 * }</pre>
 *
 * @param owner the owner id of the leader's lease, as in the item
 * @param holder the leader's readable name ({@code locktable.holder} of its instance); empty when it set none
 * @param fencingToken the fencing token of the leader's term
 * @param since for this instance, when its term began; for another, when this instance first read this term (this
 *     owner and token) in the item
 * @param seenAt for this instance, its term's last renewal (or its start); for another, this instance's last read
 *     that showed it
 * @param self true when this instance leads
 */
public record CurrentLeader(
        String owner, Optional<String> holder, long fencingToken, Instant since, Instant seenAt, boolean self) {

    /** Checks that no component is null. */
    public CurrentLeader {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(seenAt, "seenAt");
    }

    /** {@return the holder's readable name, or its owner id when it set none} */
    public String instance() {
        return holder.orElse(owner);
    }
}
