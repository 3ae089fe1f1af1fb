package io.locktable;

import io.locktable.LockStore.StoredLock;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every decision of the protocol, as pure functions over small records: no threads, no requests, no clock reads
 * (the time is an argument, nanoseconds of one process's monotonic clock, compared as differences since {@code
 * System.nanoTime} may wrap). The step numbers are those of {@code package-info.java}; {@link Acquirer} and {@link
 * LeaseKeeper} carry the decisions out, and {@code ProtocolTest} checks them row by row without an engine.
 *
 * <p>The steps that decide nothing live where they act: step 1, the item's attributes, and step 9, the table's
 * check, in {@link DynamoDbLockStore}; step 8, the fencing high-water mark, in {@link LockMemory};
 * the number each step waits or times out for, in {@link Timing}.
 */
final class Protocol {

    private Protocol() {}

    // ---- steps 2 to 4: acquiring

    /**
     * A holder this table watches: the record version it last saw, when it first saw that version (the answer that
     * showed it, on this process's clock), and the holder's lease.
     */
    record Seen(String rvn, long sinceNanos, long leaseNanos) {
        /** When the holder is due for a takeover: a whole lease after the first sight of this record version. */
        long dueNanos() {
            return sinceNanos + leaseNanos;
        }
    }

    /** What an attempt does next. */
    sealed interface Next permits WriteFree, TakeOver, Busy {}

    /** Step 2: write at once, on the condition that the lock has no owner. */
    record WriteFree() implements Next {}

    /** Step 4: the holder kept one record version for a whole lease: write on the condition that it still has it. */
    record TakeOver(String seenRvn) implements Next {}

    /**
     * The lock is held: wait, and remember {@code seen} (null: nothing to remember, the item moved on under a
     * racing contender).
     *
     * @param untilDueNanos how long until the holder is due for a takeover, or -1 when unknown
     * @param holderLeaseNanos the holder's lease, or -1 when unknown
     */
    record Busy(
            long untilDueNanos,
            long holderLeaseNanos,
            @Nullable Seen seen) implements Next {}

    /** Step 2 or 4: a table that watches no holder of the lock writes at once; one that does reads first. */
    static boolean readsFirst(@Nullable Seen watched) {
        return watched != null;
    }

    /**
     * Step 4: what a read shows a table that watches {@code watched}. A free lock is written at once; the same
     * record version for a whole lease is taken over; a new record version starts a new watch, dated by the answer
     * that showed it, never earlier (a renewal that lands during a slow read must not look older than it is).
     */
    static Next afterRead(Seen watched, @Nullable StoredLock current, long answeredNanos) {
        if (current == null || !current.isHeld()) {
            return new WriteFree();
        }
        if (watched.rvn().equals(current.rvn())) {
            long untilDue = watched.dueNanos() - answeredNanos;
            return untilDue <= 0 ? new TakeOver(watched.rvn()) : new Busy(untilDue, watched.leaseNanos(), watched);
        }
        Seen fresh = new Seen(current.rvn(), answeredNanos, leaseNanos(current));
        return new Busy(fresh.leaseNanos(), fresh.leaseNanos(), fresh);
    }

    /**
     * Step 3: what a refused write shows. The holder's record version is remembered from its first sight ({@code
     * watched}, if it is the same version); a lock that turned out free (a racing contender released it) is tried
     * again soon.
     */
    static Busy afterRefusal(@Nullable Seen watched, @Nullable StoredLock holder, long answeredNanos) {
        if (holder == null || !holder.isHeld()) {
            return new Busy(-1, -1, null);
        }
        Seen known = watched != null && watched.rvn().equals(holder.rvn())
                ? watched
                : new Seen(holder.rvn(), answeredNanos, leaseNanos(holder));
        return new Busy(Math.max(0, known.dueNanos() - answeredNanos), known.leaseNanos(), known);
    }

    /**
     * Step 2: a refused write whose item shows this very write (owner and record version just sent) was applied by an
     * earlier attempt of the SDK, whose answer was lost: it is a success.
     */
    static boolean isOwnWrite(@Nullable StoredLock current, String owner, String rvn) {
        return current != null && owner.equals(current.owner()) && rvn.equals(current.rvn());
    }

    /**
     * The fence an acquire writes: one above the item's, or, for an item that has none (new, or deleted and made
     * again), one above the highest this table knows for the lock.
     */
    static long nextFence(@Nullable StoredLock item, long highestKnown) {
        return item == null ? Math.max(0, highestKnown) + 1 : item.fence() + 1;
    }

    // ---- step 5: renewing

    /** What a lease does when its renewal is due. */
    enum RenewalStep {
        /** Its time ran out on this clock: it ends, and a release is tried in case the item is still its own. */
        EXPIRE,
        /** Too many renewals went unanswered: one read settles which, if any, was applied. */
        SETTLE,
        /** Send a renewal with a new record version. */
        SEND
    }

    /** What the timer does with a held lease whose wake came ({@link #atWake}). */
    enum Wake {
        /** It ended, or reached its expiry watch without a renewal that moved its end: it expires. */
        EXPIRE,
        /** A renewal is under way: it wakes again at its expiry watch, unless the renewal's outcome moves it. */
        WATCH,
        /** Its renewal is due: one is started, and it wakes again at its expiry watch. */
        RENEW
    }

    /**
     * Step 5, on the timer: a lease's expiry watch is a guard before its end ({@link Timing#expiryGuard}), so that a
     * late timer thread still ends it in time.
     */
    static long expiryWatch(long endNanos, long leaseNanos) {
        return endNanos - Timing.expiryGuard(leaseNanos);
    }

    /**
     * Step 5, on the timer: what a lease whose wake came does. The timer keeps the deadlines; this decides.
     *
     * @param live whether the lease has not ended
     * @param renewing whether a renewal of it is under way
     */
    static Wake atWake(long nowNanos, long watchNanos, boolean live, boolean renewing) {
        if (!live || nowNanos - watchNanos >= 0) {
            return Wake.EXPIRE;
        }
        return renewing ? Wake.WATCH : Wake.RENEW;
    }

    /** Step 5: at a renewal's due time. */
    static RenewalStep atRenewal(long endNanos, long nowNanos, int unanswered, int maxUnanswered) {
        if (endNanos - nowNanos <= 0) {
            return RenewalStep.EXPIRE;
        }
        return unanswered >= maxUnanswered ? RenewalStep.SETTLE : RenewalStep.SEND;
    }

    /**
     * Step 5: a confirmed renewal that {@link #renewalCounts counts}, sent at {@code sentNanos}, moves the lease's end
     * to that send time plus the lease, never back.
     *
     * @return the new end, or {@code endNanos} unchanged
     */
    static long endAfterRenewal(long endNanos, long sentNanos, long leaseNanos) {
        long renewed = sentNanos + leaseNanos;
        return renewed - endNanos > 0 ? renewed : endNanos;
    }

    /**
     * Step 5: whether a confirmed renewal counts: it was answered before the lease's end on this clock. One answered
     * after moves nothing: a lease that ran out stays ended.
     */
    static boolean renewalCounts(long endNanos, long answeredNanos) {
        return answeredNanos - endNanos < 0;
    }

    /** What a settling read found. */
    sealed interface Settled permits Lost, NoneApplied, Applied {}

    /** Another acquisition has the item, or nobody, or a record version this lease never wrote: it is lost. */
    record Lost(String why) implements Settled {}

    /** The item is at the confirmed record version: no unanswered renewal was applied; renew again now. */
    record NoneApplied() implements Settled {}

    /** One unanswered renewal was applied: it counts from its send time. */
    record Applied(String rvn, long sentNanos) implements Settled {}

    /**
     * Step 5: after too many unanswered renewals, what one read of the item says.
     *
     * @param unanswered the record versions sent without an answer, with their send times
     */
    static Settled settle(
            @Nullable StoredLock stored, String owner, long fence, String confirmedRvn, Map<String, Long> unanswered) {
        if (stored == null || !owner.equals(stored.owner()) || stored.fence() != fence) {
            return new Lost("a read found another holder or no owner");
        }
        if (confirmedRvn.equals(stored.rvn())) {
            return new NoneApplied();
        }
        Long sentAt = unanswered.get(stored.rvn());
        return sentAt == null
                ? new Lost("a read found a record version this lease did not write")
                : new Applied(stored.rvn(), sentAt);
    }

    // ---- steps 6 and 7: releasing and fencing

    /**
     * Steps 6 and 7: whether the item is still held by this acquisition, as the condition of a release and of a held
     * check says ({@code owner = :me AND fence = :myFence}; not the record version, which each renewal changes).
     */
    static boolean heldBy(@Nullable StoredLock item, String owner, long fence) {
        return item != null && owner.equals(item.owner()) && item.fence() == fence;
    }

    /** The holder's lease, in nanoseconds. */
    private static long leaseNanos(StoredLock holder) {
        return holder.leaseMs() * 1_000_000L;
    }
}
