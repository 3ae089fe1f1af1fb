package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire attempt at a time (steps 2 to 4 of the protocol): writes at once to a lock it has not seen held, and
 * otherwise reads first and writes only when the lock is free or its holder kept one record version for a whole
 * lease on this process's monotonic clock. It decides; {@link LockStore} sends.
 */
final class Acquirer {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /** The result of one attempt. */
    sealed interface Attempt permits Acquired, Busy {}

    /** The attempt took the lock. */
    record Acquired(Lease lease) implements Attempt {}

    /**
     * The lock is held.
     *
     * @param untilDueNanos how long until the holder would be due for a takeover, or -1 when unknown
     * @param holderLeaseNanos the holder's lease, or -1 when unknown
     */
    record Busy(long untilDueNanos, long holderLeaseNanos) implements Attempt {}

    private final LockStore store;
    private final LockClock clock;
    private final Workers workers;
    private final Listeners listeners;
    private final FenceHighWater fences;
    private final LeaseKeeper keeper;
    private final ConcurrentMap<String, Protocol.Seen> watched = new ConcurrentHashMap<>();

    Acquirer(
            LockStore store,
            LockClock clock,
            Workers workers,
            Listeners listeners,
            FenceHighWater fences,
            LeaseKeeper keeper) {
        this.store = store;
        this.clock = clock;
        this.workers = workers;
        this.listeners = listeners;
        this.fences = fences;
        this.keeper = keeper;
    }

    /**
     * One attempt.
     *
     * @param waitLeftNanos how long the caller still waits; no request outlasts it
     */
    Attempt attempt(String name, Duration lease, long waitLeftNanos) {
        fences.enter(name);
        try {
            return attemptInUse(name, lease, waitLeftNanos);
        } finally {
            fences.leave(name);
        }
    }

    private Attempt attemptInUse(String name, Duration lease, long waitLeftNanos) {
        Protocol.Seen seen = watched.get(name);
        if (!Protocol.readsFirst(seen)) {
            return write(name, lease, null, waitLeftNanos); // step 2
        }
        long sent = clock.nanoTime(); // step 4: read first
        StoredLock current = store.read(name, Timing.readTimeout(lease, waitLeftNanos));
        long answered = clock.nanoTime();
        if (current != null && current.isHeld()) {
            fences.observed(name, current.fence(), sent, answered);
        }
        long waitLeft = waitLeftNanos - (answered - sent);
        Protocol.Next next = Protocol.afterRead(seen, current, answered);
        if (next instanceof Protocol.TakeOver takeOver) {
            return write(name, lease, takeOver.seenRvn(), waitLeft);
        }
        if (next instanceof Protocol.Busy busy) {
            return busy(name, Objects.requireNonNull(current), busy);
        }
        watched.remove(name);
        return write(name, lease, null, waitLeft);
    }

    /** Forgets the holder seen: the lock was released by this very table, so the next attempt writes at once. */
    void forgetHolder(String name) {
        watched.remove(name);
    }

    /** A strongly consistent read, for {@link LockTable#read}. */
    @Nullable
    StoredLock read(String name, Duration timeout) {
        fences.enter(name);
        try {
            long sent = clock.nanoTime();
            StoredLock stored = store.read(name, timeout);
            if (stored != null) {
                fences.observed(name, stored.fence(), sent, clock.nanoTime());
            }
            return stored;
        } finally {
            fences.leave(name);
        }
    }

    private Attempt write(String name, Duration lease, @Nullable String seenRvn, long waitLeftNanos) {
        UUID version = RandomIds.nextVersion();
        String rvn = version.toString();
        long acquisition = keeper.nextAcquisition();
        String acquisitionOwner = keeper.ownerOf(acquisition);
        Instant wall = clock.instant();
        long sent = clock.nanoTime();
        LockStore.AcquireAnswer answer;
        try {
            answer = store.acquire(
                    name,
                    seenRvn,
                    acquisitionOwner,
                    rvn,
                    lease,
                    wall,
                    fences.highest(name),
                    Timing.acquireTimeout(lease, waitLeftNanos));
        } catch (RuntimeException | Error e) {
            if (LockStore.mayHaveApplied(e)) {
                Runnable giveBack =
                        () -> giveBack(name, acquisitionOwner, rvn, lease, sent, Timing.FIRST_GIVE_BACK_RETRY_NANOS);
                if (!workers.run(giveBack, sent)) {
                    giveBack.run(); // the table is closing: nothing else will give it back, so this thread does
                }
            }
            throw e;
        }
        // step 3: the answer dates what it shows, after any read the store needed to show it
        long answered = clock.nanoTime();
        if (answer instanceof LockStore.Granted granted) {
            return granted(name, lease, seenRvn != null, granted.mine(), acquisition, version, sent, answered, wall);
        }
        StoredLock holder = ((LockStore.Refused) answer).current();
        Protocol.Busy busy = Protocol.afterRefusal(watched.get(name), holder, answered); // step 3
        if (holder == null || busy.seen() == null) {
            return new Busy(-1, -1); // it moved on under a racing contender: try again soon
        }
        fences.observed(name, holder.fence(), sent, answered);
        return busy(name, holder, busy);
    }

    private Attempt granted(
            String name,
            Duration duration,
            boolean tookOver,
            StoredLock mine,
            long acquisition,
            UUID version,
            long sent,
            long answered,
            Instant wall) {
        watched.remove(name);
        fences.granted(name, mine.fence(), sent, answered);
        fences.enter(name); // the lease keeps the mark until it ends (LeaseKeeper)
        Lease lease = new Lease(keeper, name, acquisition, mine.fence(), version, duration, sent, wall, tookOver);
        if (!keeper.start(lease, () -> listeners.onAcquired(lease, tookOver))) {
            throw new IllegalStateException("lock table " + store.tableName() + " was closed while lock '" + name
                    + "' was being acquired; the lock was given back");
        }
        if (tookOver) {
            log.info("Took over lock '{}' in table '{}' (fencing token {})", name, store.tableName(), mine.fence());
        }
        return new Acquired(lease);
    }

    /**
     * Remembers the holder the decision saw and tells the listeners. Two attempts of this table at once keep the
     * earlier sight of one record version: a holder's clock starts at its first sight.
     */
    private Busy busy(String name, StoredLock holder, Protocol.Busy busy) {
        Protocol.Seen seen = busy.seen();
        if (seen != null) {
            watched.merge(name, seen, (kept, fresh) -> kept.rvn().equals(fresh.rvn()) ? kept : fresh);
        }
        listeners.onBusy(holder.name(), holder.toRecord());
        return new Busy(busy.untilDueNanos(), busy.holderLeaseNanos());
    }

    /**
     * An acquire whose answer never came may have been applied: give it back if so. Each attempt is bounded, and a
     * failed one is tried again with back-off, but only while the lease it may have taken could still be held.
     */
    private void giveBack(String name, String owner, String rvn, Duration lease, long sentNanos, long retryNanos) {
        long left = sentNanos + lease.toNanos() - clock.nanoTime();
        if (left <= 0) {
            return; // whatever it took has run out by now
        }
        try {
            if (store.giveBack(name, owner, rvn, Timing.giveBackTimeout(left))) {
                log.info("Gave back lock '{}' whose acquire was applied but not answered", name);
            } else {
                log.debug("Unanswered acquire of lock '{}' was not applied", name);
            }
        } catch (RuntimeException | Error e) {
            log.debug("Could not give back the unanswered acquire of lock '{}' yet: {}", name, e.toString());
            if (retryNanos - (sentNanos + lease.toNanos() - clock.nanoTime()) >= 0) {
                return; // the lease it may have taken runs out before the next try
            }
            long next = Math.min(retryNanos * 2, Timing.LAST_GIVE_BACK_RETRY_NANOS);
            try {
                clock.schedule(
                        () -> workers.run(() -> giveBack(name, owner, rvn, lease, sentNanos, next), sentNanos),
                        retryNanos);
            } catch (RejectedExecutionException closed) {
                log.info(
                        "Lock table '{}' closed before the unanswered acquire of lock '{}' could be given back; if it"
                                + " was applied, the lock frees itself after its lease of {}",
                        store.tableName(),
                        name,
                        lease);
            }
        }
    }
}
