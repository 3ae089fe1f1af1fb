package io.locktable;

import io.locktable.LockStore.StoredLock;
import io.locktable.Scheduler.LeaseTimer;
import io.locktable.Scheduler.Workers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Keeps the leases of one table (steps 5, 6 and 8): renews each every third of its duration, ends it when a
 * renewal shows it lost or none succeeded within its duration, and releases it. Every end is announced once, after
 * the lease's earlier events.
 */
final class LeaseKeeper {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final LockStore store;
    private final LockClock clock;
    private final Workers workers;
    private final Listeners listeners;
    private final Consumer<String> releasedHere;
    private final String owner;
    private final FenceHighWater fences;
    /** Every live lease, by when it next wakes: the table's set of held leases and their one timer. */
    private final LeaseTimer timer;

    private final RenewalLateness lateness;
    private final AtomicLong acquisitions = new AtomicLong();
    /** Releases that callers' threads are sending: {@link #closeAll()} waits for them, as for its own. */
    private final Set<CountDownLatch> releasesInFlight = ConcurrentHashMap.newKeySet();
    /**
     * The end hooks of the leases that have one ({@link Lease#onEnd}): only a leader term's, so they are kept here
     * rather than in a field that every lease would pay for.
     */
    private final Map<Lease, Runnable> endHooks = new ConcurrentHashMap<>();

    private boolean closed; // guarded by this
    private volatile boolean multiRegionStrong;

    /** @param releasedHere told the name of each lock this table released, for a waiter of the same table */
    LeaseKeeper(
            LockStore store,
            LockClock clock,
            Workers workers,
            Listeners listeners,
            String owner,
            FenceHighWater fences,
            Consumer<String> releasedHere) {
        this.releasedHere = releasedHere;
        this.fences = fences;
        this.owner = owner;
        this.timer = new LeaseTimer(clock, new LeaseTimer.Wakes() {
            @Override
            public void renew(Lease lease, long dueNanos) {
                workers.run(
                        () -> LeaseKeeper.this.renew(lease, dueNanos),
                        lease.state().endNanos());
            }

            @Override
            public void expire(Lease lease) {
                LeaseKeeper.this.expire(lease);
            }
        });
        this.store = store;
        this.clock = clock;
        this.workers = workers;
        this.listeners = listeners;
        this.lateness = new RenewalLateness(store.tableName(), clock, listeners);
    }

    long nanoTime() {
        return clock.nanoTime();
    }

    /** The owner id of the table, which begins the owner of each of its acquisitions. */
    String owner() {
        return owner;
    }

    /** A number no other acquisition of this table has: with the table's owner, the acquisition's identity. */
    long nextAcquisition() {
        return acquisitions.incrementAndGet();
    }

    /**
     * The owner an acquisition writes and every later request of it compares: the table's id and the acquisition's
     * number, so that no two acquisitions, even of one table after the item was deleted, match each other's
     * conditions (step 1).
     */
    String ownerOf(long acquisition) {
        return owner + "." + Long.toString(acquisition, 36);
    }

    Collection<Lease> held() {
        List<Lease> all = timer.leases();
        List<Lease> live = new ArrayList<>(all.size());
        for (Lease lease : all) {
            if (lease.isHeld()) {
                live.add(lease);
            }
        }
        return live;
    }

    /**
     * Starts keeping a lease just acquired, announcing it first; one that ended already (a late answer) expires at once.
     *
     * @return false, with nothing announced, if the table closed meanwhile: the lease is given back at once
     */
    boolean start(Lease lease, Runnable announce) {
        LeaseState state = lease.state();
        boolean refused;
        synchronized (state) { // an end (close() included) waits for the announcement, so it is announced after it
            synchronized (this) {
                refused = closed;
                if (!refused) {
                    timer.add(lease);
                }
            }
            if (!refused) {
                announce.run();
            }
        }
        if (refused) {
            state.finish(LeaseEnd.CLOSED);
            fences.leave(lease.name());
            state.announceEnd();
            sendRelease(lease, Timing.releaseTimeout(lease.duration()));
            return false;
        }
        if (!lease.isHeld()) {
            log.warn(
                    "Acquire of lock '{}' in table '{}' was answered after its whole lease of {}: it has ended"
                            + " already and is given back",
                    lease.name(),
                    store.tableName(),
                    lease.duration());
            expire(lease);
            return true;
        }
        long sent = state.endNanos() - lease.durationNanos();
        timer.renewAt(lease, sent + Timing.renewalPeriod(lease.durationNanos()));
        return true;
    }

    /** See {@link Lease#onEnd}. */
    void onEnd(Lease lease, Runnable hook) {
        endHooks.put(lease, hook);
        if (!lease.isLive()) {
            runEndHook(lease); // it ended before, or is ending now: whichever of the two takes the hook runs it
        }
    }

    private void runEndHook(Lease lease) {
        Runnable hook = endHooks.remove(lease);
        if (hook != null) {
            hook.run();
        }
    }

    /** Step 5: one renewal attempt, on a worker thread, due at {@code dueNanos}. */
    private void renew(Lease lease, long dueNanos) {
        if (!lease.isLive()) {
            return;
        }
        LeaseState state = lease.state();
        long sent = clock.nanoTime();
        lateness.observe(lease, sent - dueNanos);
        long left = state.endNanos() - sent;
        switch (Protocol.atRenewal(state.endNanos(), sent, state.unansweredCount(), Timing.MAX_UNANSWERED)) {
            case EXPIRE -> {
                expire(lease);
                return;
            }
            case SETTLE -> {
                settle(lease, left);
                return;
            }
            case SEND -> {}
        }
        String version = UUID.randomUUID().toString();
        Instant wall = clock.instant();
        List<String> candidates = state.startRenewal(version, sent);
        try {
            LockStore.RenewAnswer answer =
                    store.renew(lease.ref(), candidates, version, Timing.renewalTimeout(left), wall);
            if (answer == LockStore.RenewAnswer.LOST) {
                lose(lease, "a renewal found another holder or no owner");
            } else {
                renewed(lease, version, sent, wall);
            }
        } catch (ResourceNotFoundException e) {
            lose(lease, "the table does not exist any more");
        } catch (RuntimeException | Error e) {
            // an Error too (a decorator's AssertionError, a class that failed to load): one attempt failed, and the
            // next may succeed; ending the renewals here would let the lease run out for nothing
            renewalFailed(lease, e);
        }
    }

    /** A renewal sent at {@code sentNanos} wrote {@code version}: the next one is due a third of a lease after it. */
    private void renewed(Lease lease, String version, long sentNanos, Instant wall) {
        LeaseState state = lease.state();
        synchronized (state) { // so that no end is announced between the renewal and its event
            if (!state.renewed(version, lease.durationNanos(), clock.nanoTime(), wall)) {
                return;
            }
            listeners.onRenewed(lease);
        }
        log.debug("Renewed lock '{}' (fencing token {})", lease.name(), lease.fencingToken());
        timer.renewAt(lease, sentNanos + Timing.renewalPeriod(lease.durationNanos()));
    }

    /** Too many renewals went unanswered: one read tells which, if any, was applied. */
    private void settle(Lease lease, long left) {
        try {
            StoredLock stored = store.read(lease.name(), Timing.renewalTimeout(left));
            LeaseState state = lease.state();
            Protocol.Settled settled = Protocol.settle(
                    stored, lease.owner(), lease.fencingToken(), state.recordVersion(), state.unanswered());
            if (settled instanceof Protocol.Lost lost) {
                lose(lease, lost.why());
            } else if (settled instanceof Protocol.Applied applied) {
                renewed(lease, applied.rvn(), applied.sentNanos(), clock.instant());
            } else {
                state.forgetUnanswered();
                renew(lease, clock.nanoTime());
            }
        } catch (RuntimeException | Error e) {
            renewalFailed(lease, e);
        }
    }

    private void renewalFailed(Lease lease, Throwable error) {
        if (!lease.isLive()) {
            return;
        }
        long left = lease.state().endNanos() - clock.nanoTime();
        log.debug(
                "Renewal of lock '{}' failed, {} ms of its lease left: {}",
                lease.name(),
                left / 1_000_000,
                error.toString());
        listeners.onRenewalFailed(
                lease,
                error instanceof Exception exception
                        ? exception
                        : new IllegalStateException("the renewal threw " + error, error));
        timer.renewAt(lease, clock.nanoTime() + Timing.renewalRetryDelay(left, ThreadLocalRandom.current()));
    }

    /** The lease ran out on this process's clock: it ends, and a release is tried in case the item is still ours. */
    void expire(Lease lease) {
        if (end(lease, LeaseEnd.EXPIRED, false)) {
            log.warn(
                    "Lease of lock '{}' in table '{}' (fencing token {}) ran out: no renewal succeeded within {}",
                    lease.name(),
                    store.tableName(),
                    lease.fencingToken(),
                    lease.duration());
            workers.run(() -> sendRelease(lease, Timing.releaseTimeout(lease.duration())), clock.nanoTime());
        }
    }

    private void lose(Lease lease, String why) {
        if (end(lease, LeaseEnd.LOST, false)) {
            logLost(lease, why);
        }
    }

    private void logLost(Lease lease, String why) {
        log.warn(
                "Lease of lock '{}' in table '{}' (fencing token {}) was lost: {}",
                lease.name(),
                store.tableName(),
                lease.fencingToken(),
                why);
    }

    /**
     * Ends a lease once and announces it: the listeners' event after the lease's earlier ones, then {@link
     * Lease#whenEnded()}, on the caller's thread if the caller ended it, else (a timer or worker ended it, for a
     * delayed release or an election's) on the event thread.
     */
    private boolean end(Lease lease, LeaseEnd reason, boolean byCaller) {
        LeaseState state = lease.state();
        synchronized (state) {
            if (!state.finish(reason)) {
                return false;
            }
            if (reason == LeaseEnd.LOST || reason == LeaseEnd.EXPIRED) {
                listeners.onLost(lease, reason);
            } else {
                listeners.onReleased(lease);
            }
        }
        timer.remove(lease);
        fences.leave(lease.name());
        runEndHook(lease); // a leader's work is interrupted from here, never behind a listener on the event thread
        if (byCaller && !Scheduler.onTimerOrWorker()) {
            state.announceEnd();
        } else {
            listeners.dispatch(state::announceEnd);
        }
        return true;
    }

    /** Releases now, or from the table's timer once {@code delayNanos} have passed; the lease renews meanwhile. */
    void releaseAfter(Lease lease, long delayNanos) {
        if (delayNanos <= 0) {
            release(lease, LeaseEnd.RELEASED);
            return;
        }
        try {
            clock.schedule(
                    () -> workers.run(
                            () -> release(lease, LeaseEnd.RELEASED), clock.nanoTime() + lease.durationNanos()),
                    delayNanos);
        } catch (RejectedExecutionException closed) {
            release(lease, LeaseEnd.RELEASED); // the table is closing: its close releases everything anyway
        }
    }

    /**
     * Step 6: ends the lease locally first, then removes its owner with a write conditional on owner and fence. A
     * lease that ran out or was lost sends nothing here.
     */
    void release(Lease lease, LeaseEnd reason) {
        if (!lease.isLive()) {
            return;
        }
        if (!lease.isHeld()) {
            expire(lease); // its time ran out before the timer noticed
            return;
        }
        // counted before the lease ends, so that a close() that finds it ended waits for its release to be sent
        CountDownLatch sending = new CountDownLatch(1);
        releasesInFlight.add(sending);
        try {
            if (end(lease, reason, true)
                    && sendRelease(lease, Timing.releaseTimeout(lease.duration()))
                            == LockStore.ReleaseAnswer.RELEASED) {
                releasedHere.accept(lease.name());
            }
        } finally {
            releasesInFlight.remove(sending);
            sending.countDown();
        }
    }

    /** Sends a release; returns what it came to, or null if it did not reach DynamoDB (logged). */
    private LockStore.@Nullable ReleaseAnswer sendRelease(Lease lease, Duration timeout) {
        try {
            LockStore.ReleaseAnswer answer = store.release(lease.ref(), timeout);
            if (answer == LockStore.ReleaseAnswer.RELEASED) {
                log.debug("Released lock '{}' (fencing token {})", lease.name(), lease.fencingToken());
            } else {
                log.debug("Release of lock '{}' changed nothing: another acquisition has it", lease.name());
            }
            return answer;
        } catch (RuntimeException e) {
            log.warn(
                    "Release of lock '{}' in table '{}' failed; it frees itself after its lease of {}: {}",
                    lease.name(),
                    store.tableName(),
                    lease.duration(),
                    e.toString());
            return null;
        }
    }

    /** {@link LockTable#verify()} found a global table with multi-Region strong consistency: no transactions. */
    void multiRegionStrong(boolean strong) {
        this.multiRegionStrong = strong;
    }

    TransactWriteItem heldCheck(Lease lease) {
        if (multiRegionStrong) {
            throw new IllegalStateException("Table '" + store.tableName() + "' is a global table with multi-Region"
                    + " strong consistency, which has no transactions: a write cannot be fenced with heldCheck()"
                    + " there; hand lease.fencingToken() to a system that checks it instead");
        }
        return store.heldCheck(lease.ref());
    }

    /** Step 7: a fenced transaction; a failed held check ends the lease as lost. */
    void transactWrite(Lease lease, List<TransactWriteItem> writes) {
        if (!lease.isHeld()) {
            throw new LeaseLostException(
                    lease.name(),
                    lease.fencingToken(),
                    "it ended (" + lease.end().orElse(LeaseEnd.EXPIRED) + ")",
                    null);
        }
        heldCheck(lease); // refuses a table without transactions before anything is sent
        try {
            store.transactWrite(lease.ref(), writes);
        } catch (TransactionCanceledException e) {
            if (LockStore.heldCheckFailed(e)) {
                if (end(lease, LeaseEnd.LOST, true)) {
                    logLost(lease, "a fenced transaction's check failed");
                }
                throw new LeaseLostException(
                        lease.name(), lease.fencingToken(), "the transaction's held check failed", e);
            }
            throw e;
        }
    }

    /**
     * Waits for the releases until the deadline; an interrupt of the closing thread does not cut them short (they
     * are bounded anyway), and is kept for the caller.
     */
    private static void awaitEvenIfInterrupted(CountDownLatch done, long deadlineNanos) {
        boolean interrupted = false;
        while (true) {
            try {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0 || done.await(left, TimeUnit.NANOSECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Ends and releases every lease for {@link LockTable#close()}, in parallel on the workers, within {@link
     * Timing#CLOSE}. Leases acquired after this are given back by their acquire.
     */
    void closeAll() {
        List<Lease> leases;
        synchronized (this) {
            closed = true;
            leases = timer.leases();
        }
        List<Lease> toSend = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            boolean live = lease.isHeld();
            if (end(lease, LeaseEnd.CLOSED, true) && live) {
                toSend.add(lease);
            }
        }
        // every lease has ended now: a release that a caller's thread started before is on its way, and the client
        // must not be closed under it (the next holder would wait out a whole lease), so close waits for it too
        List<CountDownLatch> callersReleases = List.copyOf(releasesInFlight);
        // real time, not the clock's: this bounds real requests, and decides nothing about a lease
        long deadline = System.nanoTime() + Timing.CLOSE.toNanos();
        AtomicInteger sent = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(toSend.size());
        for (Lease lease : toSend) {
            Runnable release = () -> {
                try {
                    long left = deadline - System.nanoTime();
                    if (left > 0 && sendRelease(lease, Timing.closingReleaseTimeout(lease.duration(), left)) != null) {
                        sent.incrementAndGet();
                    }
                } finally {
                    done.countDown();
                }
            };
            // on the table's workers, nearest the end first, growing while they are late, as renewals are
            if (!workers.run(release, deadline)) {
                release.run();
            }
        }
        long waitUntil = deadline + Timing.CLOSE_GRACE.toNanos();
        awaitEvenIfInterrupted(done, waitUntil);
        callersReleases.forEach(release -> awaitEvenIfInterrupted(release, waitUntil));
        int missed = toSend.size() - sent.get();
        if (missed > 0) {
            log.warn(
                    "Closing lock table '{}': {} of {} releases did not reach DynamoDB within {}; those locks free"
                            + " themselves after their lease",
                    store.tableName(),
                    missed,
                    toSend.size(),
                    Timing.CLOSE);
        }
    }

    /**
     * Reports renewals that start late (past {@link Timing#lateRenewal}) to the listeners, and logs them at most once a
     * minute, long before a lease is lost (only after three periods without a renewal).
     */
    private static final class RenewalLateness {

        private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

        private final String tableName;
        private final LockClock clock;
        private final LockTableListener listener;
        private final ReentrantLock lock = new ReentrantLock();
        private long lastLoggedNanos; // guarded by lock
        private boolean logged; // guarded by lock
        private int lateSinceLog; // guarded by lock
        private long worstSinceLogNanos; // guarded by lock

        RenewalLateness(String tableName, LockClock clock, LockTableListener listener) {
            this.tableName = tableName;
            this.clock = clock;
            this.listener = listener;
        }

        void observe(Lease lease, long latenessNanos) {
            long period = Timing.renewalPeriod(lease.durationNanos());
            if (latenessNanos <= Timing.lateRenewal(lease.durationNanos())) {
                return;
            }
            listener.onRenewalLate(lease, Duration.ofNanos(latenessNanos));
            int count;
            long worst;
            lock.lock();
            try {
                lateSinceLog++;
                worstSinceLogNanos = Math.max(worstSinceLogNanos, latenessNanos);
                long now = clock.nanoTime();
                if (logged && now - lastLoggedNanos < LOG_EVERY_NANOS) {
                    return;
                }
                logged = true;
                lastLoggedNanos = now;
                count = lateSinceLog;
                worst = worstSinceLogNanos;
                lateSinceLog = 0;
                worstSinceLogNanos = 0;
            } finally {
                lock.unlock();
            }
            log.warn(
                    "Lock table '{}': {} renewals started late, the latest by {} ms (lock '{}', renewed every {} ms):"
                            + " the engine answers slower than renewals fall due; leases are lost if this grows to a"
                            + " whole lease. The table adds worker threads while this lasts, up to {}; beyond that,"
                            + " give it longer leases",
                    tableName,
                    count,
                    worst / 1_000_000,
                    lease.name(),
                    period / 1_000_000,
                    Timing.MAX_WORKERS);
        }
    }

    /**
     * What changes in one held lease: its record version, end, unanswered renewals and place on the timer; {@link
     * Lease} is the immutable handle over it. Guarded by its own monitor, which no caller can reach (so none can hold
     * up a renewal), held only briefly and never over a wait or a request; the keeper holds it across a change and the
     * event it announces. Every field is paid per lease: the record version is two longs, and {@link #whenEnded()}'s
     * future is made only when asked for.
     */
    static final class LeaseState {

        private long versionHigh; // guarded by this: the record version the last confirmed write set
        private long versionLow; // guarded by this
        private volatile long endNanos; // written under this; read without it by the timer and the keeper
        private volatile long renewedAtMillis; // written under this
        private volatile @Nullable LeaseEnd end; // set once, under this; null while the lease is live
        private @Nullable CompletableFuture<LeaseEnd> ended; // guarded by this; made by the first whenEnded()
        private boolean announced; // guarded by this: the end was announced
        /** Record versions that renewals sent without an answer, with their send times; guarded by this. */
        private @Nullable Map<String, Long> unanswered; // null while every renewal was answered

        // guarded by the table's LeaseTimer (its monitor), read and written by it alone: this lease's place in its
        // queue,
        // when it wakes, whether a renewal is under way
        long wakeNanos;
        int timerIndex = -1;
        boolean renewing;

        LeaseState(UUID recordVersion, long endNanos, long renewedAtMillis) {
            this.versionHigh = recordVersion.getMostSignificantBits();
            this.versionLow = recordVersion.getLeastSignificantBits();
            this.endNanos = endNanos;
            this.renewedAtMillis = renewedAtMillis;
        }

        /** See {@link Lease#isHeld()}: not ended, and {@code nowNanos} before the end. */
        boolean isHeld(long nowNanos) {
            // a query only: the table's timer ends the lease at its deadline; a difference, since nanoTime may wrap
            return end == null && nowNanos - endNanos < 0;
        }

        /** See {@link Lease#remaining()}. */
        Duration remaining(long nowNanos) {
            if (!isHeld(nowNanos)) {
                return Duration.ZERO;
            }
            return Duration.ofNanos(Math.max(0, endNanos - nowNanos));
        }

        Instant renewedAt() {
            return Instant.ofEpochMilli(renewedAtMillis);
        }

        @Nullable
        LeaseEnd end() {
            return end;
        }

        boolean isLive() {
            return end == null;
        }

        long endNanos() {
            return endNanos;
        }

        /** See {@link Lease#whenEnded()}: a copy, so that no caller completes the lease's own future. */
        CompletableFuture<LeaseEnd> whenEnded() {
            CompletableFuture<LeaseEnd> future;
            synchronized (this) {
                if (ended == null) {
                    ended = new CompletableFuture<>();
                    if (announced && end != null) {
                        ended.complete(end);
                    }
                }
                future = ended;
            }
            return future.copy();
        }

        synchronized String recordVersion() {
            return new UUID(versionHigh, versionLow).toString();
        }

        /** Candidates for a renewal's condition: the confirmed version, the unanswered ones, and the new one. */
        synchronized List<String> startRenewal(String newVersion, long sentNanos) {
            if (unanswered == null) {
                unanswered = new LinkedHashMap<>(4);
            }
            unanswered.put(newVersion, sentNanos);
            List<String> candidates = new ArrayList<>(unanswered.size() + 1);
            candidates.add(recordVersion());
            candidates.addAll(unanswered.keySet());
            return candidates;
        }

        synchronized int unansweredCount() {
            return unanswered == null ? 0 : unanswered.size();
        }

        /**
         * A renewal wrote {@code version} (one this lease generated, a UUID), answered at {@code answeredNanos}: the
         * lease now ends at that renewal's send time plus its duration.
         */
        synchronized boolean renewed(String version, long durationNanos, long answeredNanos, Instant wallTime) {
            Long sent = unanswered == null ? null : unanswered.get(version);
            if (end != null || sent == null || !Protocol.renewalCounts(endNanos, answeredNanos)) {
                // answered after the lease ran out on this clock: it stays ended (isHeld() never turns true again)
                return false;
            }
            unanswered = null;
            UUID confirmed = UUID.fromString(version);
            versionHigh = confirmed.getMostSignificantBits();
            versionLow = confirmed.getLeastSignificantBits();
            endNanos = Protocol.endAfterRenewal(endNanos, sent, durationNanos, answeredNanos);
            renewedAtMillis = wallTime.toEpochMilli();
            return true;
        }

        /** The record versions of the renewals whose answer never came, with their send times: a copy. */
        synchronized Map<String, Long> unanswered() {
            return unanswered == null ? Map.of() : Map.copyOf(unanswered);
        }

        /** A read showed the item still at the confirmed version: the unanswered renewals were not applied. */
        synchronized void forgetUnanswered() {
            unanswered = null;
        }

        /**
         * Ends the lease once; returns false if it had ended already. {@link #whenEnded()} completes only with {@link
         * #announceEnd()}, on the thread the keeper chooses. The keeper takes it off the timer.
         */
        synchronized boolean finish(LeaseEnd reason) {
            if (end != null) {
                return false;
            }
            end = reason;
            unanswered = null;
            return true;
        }

        /** Completes {@link #whenEnded()} once the lease has ended, outside this monitor (the future runs callbacks). */
        void announceEnd() {
            CompletableFuture<LeaseEnd> future;
            LeaseEnd reason;
            synchronized (this) {
                reason = end;
                if (reason == null) {
                    return;
                }
                announced = true;
                future = ended;
            }
            if (future != null) {
                future.complete(reason);
            }
        }
    }

    /**
     * The highest fencing token this table has seen per lock (step 8). A token that goes back (the item was deleted,
     * or a multi-region table granted the lock twice) is logged as an error and reported to the listener. Only
     * answers in a known order are compared: a request sent after the answer that showed the mark. A mark is kept
     * while the lock is in use here ({@link #enter}, {@link #leave}); then it joins the {@value #IDLE_MARKS} most
     * recently idle ones, so a service locking one name per entity keeps a bounded number. A forgotten mark only
     * means a regression across that gap goes unseen; no alarm is ever false.
     */
    static final class FenceHighWater {

        /** How many marks of locks not in use are kept, the most recently used ones. */
        static final int IDLE_MARKS = 256;

        private static final Logger log = LoggerFactory.getLogger(LockTable.class);

        /**
         * The highest token (-1: none yet), the earliest answer that showed it, the uses under way, and whether its
         * regression was logged as an error already; while in use, also its entry in {@link MarksInUse}. 40 bytes, as a
         * held lease keeps one.
         */
        private static final class Mark {
            String name; // the name its current use entered with: the key in MarksInUse

            @Nullable
            Mark next; // the next mark of its bucket in MarksInUse

            long fence = -1;
            long answeredNanos;
            private int usersAndReported; // the uses times two, plus one once reported

            Mark(String name) {
                this.name = name;
            }

            int users() {
                return usersAndReported >>> 1;
            }

            void use(int delta) {
                usersAndReported += 2 * delta;
            }

            boolean reported() {
                return (usersAndReported & 1) != 0;
            }

            void reported(boolean reported) {
                usersAndReported = (usersAndReported & ~1) | (reported ? 1 : 0);
            }
        }

        /**
         * The marks of the locks in use, by name: a hash table whose entries are the marks themselves, chained through
         * {@link Mark#next}. A table may hold a hundred thousand leases, each keeping its lock's mark here: as its own
         * entry a mark costs 40 bytes and a slot, where a {@code HashMap} would add a 32-byte node to a 32-byte mark.
         * Like {@code HashMap}, it grows at three quarters full; unlike it, it shrinks again at an eighth, and a bucket
         * stays a list (names whose hash codes collide cost a comparison each, where {@code HashMap} would make a long
         * bucket a tree).
         */
        private static final class MarksInUse {

            private static final int MIN_BUCKETS = 16;

            private @Nullable Mark[] buckets = new Mark[MIN_BUCKETS];
            private int size;

            @Nullable
            Mark get(String name) {
                for (Mark mark = buckets[bucket(name, buckets.length)]; mark != null; mark = mark.next) {
                    if (mark.name.equals(name)) {
                        return mark;
                    }
                }
                return null;
            }

            /** Adds a mark whose name is not in use. */
            void add(Mark mark) {
                if (size >= buckets.length - buckets.length / 4) {
                    rehash(buckets.length * 2);
                }
                link(mark, buckets);
                size++;
            }

            /** Removes a mark that is in use. */
            void remove(Mark mark) {
                int i = bucket(mark.name, buckets.length);
                Mark previous = null;
                for (Mark current = buckets[i]; current != null; previous = current, current = current.next) {
                    if (current == mark) {
                        if (previous == null) {
                            buckets[i] = mark.next;
                        } else {
                            previous.next = mark.next;
                        }
                        mark.next = null;
                        size--;
                        if (buckets.length > MIN_BUCKETS && size < buckets.length / 8) {
                            rehash(buckets.length / 2); // a table that held many leases once keeps no large array
                        }
                        return;
                    }
                }
            }

            int size() {
                return size;
            }

            private void rehash(int length) {
                @Nullable Mark[] old = buckets;
                buckets = new Mark[length];
                for (Mark head : old) {
                    Mark mark = head;
                    while (mark != null) {
                        Mark next = mark.next;
                        link(mark, buckets);
                        mark = next;
                    }
                }
            }

            private static void link(Mark mark, @Nullable Mark[] into) {
                int i = bucket(mark.name, into.length);
                mark.next = into[i];
                into[i] = mark;
            }

            private static int bucket(String name, int length) {
                int hash = name.hashCode();
                return (hash ^ (hash >>> 16)) & (length - 1); // the high bits too, as HashMap spreads them
            }
        }

        private final MarksInUse inUse = new MarksInUse(); // guarded by this
        private final LinkedHashMap<String, Mark> idle = new LinkedHashMap<>() { // guarded by this; oldest first
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Mark> eldest) {
                        return size() > IDLE_MARKS;
                    }
                };
        private final String tableName;
        private final LockTableListener listener;

        FenceHighWater(String tableName, LockTableListener listener) {
            this.tableName = tableName;
            this.listener = listener;
        }

        /** A lease, or an acquire or read, of this table on the lock begins: its mark is kept until it {@link #leave}s. */
        synchronized void enter(String name) {
            Mark mark = inUse.get(name);
            if (mark == null) {
                mark = takeIdle(name);
                mark.name = name;
                inUse.add(mark);
            }
            mark.use(1);
        }

        /** A use begun with {@link #enter} ended: the last one moves the mark to the idle ones. */
        synchronized void leave(String name) {
            Mark mark = inUse.get(name);
            if (mark == null) {
                return;
            }
            mark.use(-1);
            if (mark.users() == 0) {
                inUse.remove(mark);
                if (mark.fence >= 0) {
                    idle.put(name, mark);
                }
            }
        }

        /** A token read from the item by a request sent and answered at the given times: the mark's token is normal. */
        void observed(String name, long fence, long sentNanos, long answeredNanos) {
            check(name, fence, sentNanos, answeredNanos, false);
        }

        /** A token this table was granted by a request sent and answered at the given times: above the mark. */
        void granted(String name, long fence, long sentNanos, long answeredNanos) {
            check(name, fence, sentNanos, answeredNanos, true);
        }

        private void check(String name, long fence, long sentNanos, long answeredNanos, boolean granted) {
            long highest;
            boolean reported;
            synchronized (this) {
                Mark mark = mark(name);
                if (mark.fence < 0 || fence > mark.fence) {
                    mark.fence = fence;
                    mark.answeredNanos = answeredNanos;
                    mark.reported(false);
                    return;
                }
                boolean ordered = sentNanos - mark.answeredNanos >= 0; // sent after the mark was answered
                if (ordered && (granted ? fence <= mark.fence : fence < mark.fence)) {
                    highest = mark.fence;
                    reported = mark.reported();
                    mark.reported(true);
                } else {
                    if (fence == mark.fence && answeredNanos - mark.answeredNanos < 0) {
                        mark.answeredNanos = answeredNanos; // known earlier than thought
                    }
                    return;
                }
            }
            String message = "Fencing token of lock '{}' in table '{}' went back from {} to {}: its item was deleted or"
                    + " the table takes writes in more than one region. Systems that check tokens will refuse the new"
                    + " holder.";
            if (reported) {
                log.debug(message, name, tableName, highest, fence);
            } else {
                log.error(message, name, tableName, highest, fence);
            }
            listener.onFenceRegressed(name, highest, fence);
        }

        /** The lock's mark: in use, idle (now the most recent), or a new idle one for an answer outside any use. */
        private Mark mark(String name) {
            Mark mark = inUse.get(name);
            if (mark != null) {
                return mark;
            }
            mark = takeIdle(name);
            idle.put(name, mark); // again, now the most recent
            return mark;
        }

        /** The idle mark of a name, taken out of the idle ones, or a new mark. */
        private Mark takeIdle(String name) {
            Mark mark = idle.remove(name);
            return mark == null ? new Mark(name) : mark;
        }

        long highest(String name) {
            Mark mark = peek(name);
            return mark == null ? 0 : Math.max(0, mark.fence);
        }

        /** How many marks are kept, in use and idle. */
        synchronized int size() {
            return inUse.size() + idle.size();
        }

        private synchronized @Nullable Mark peek(String name) {
            Mark mark = inUse.get(name);
            return mark != null ? mark : idle.get(name);
        }
    }
}
