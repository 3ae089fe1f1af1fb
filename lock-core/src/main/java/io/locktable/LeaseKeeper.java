package io.locktable;

import io.locktable.LockStore.StoredLock;
import io.locktable.Scheduler.Workers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
    private final LockMemory memory;
    /** Every live lease, by when it next wakes: the table's set of held leases and their one timer. */
    private final LeaseTimer timer;

    private final RenewalLateness lateness;
    private final AtomicLong acquisitions = new AtomicLong();
    /** Releases that callers' threads are sending: {@link #closeAll()} waits for them, as for its own. */
    private final Set<CountDownLatch> releasesInFlight = ConcurrentHashMap.newKeySet();

    /** Set once by {@link #closeAll()}: a lease acquired after it is given back by its acquire. */
    private volatile boolean closed;

    private volatile boolean multiRegionStrong;

    /** @param releasedHere told the name of each lock this table released, for a waiter of the same table */
    LeaseKeeper(
            LockStore store,
            LockClock clock,
            Workers workers,
            Listeners listeners,
            String owner,
            LockMemory memory,
            Consumer<String> releasedHere) {
        this.releasedHere = releasedHere;
        this.memory = memory;
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
        if (closed) {
            state.finish(LeaseEnd.CLOSED);
            memory.leave(lease.name());
            state.announceEnd();
            sendRelease(lease, Timing.releaseTimeout(lease.duration()));
            return false;
        }
        // kept before it is announced, so a listener told of it finds it in heldLeases(); the timer wakes it no
        // sooner than a whole lease from now, after renewAt below has set its first renewal
        timer.add(lease);
        synchronized (state) { // an end (close() included) waits for the announcement, so it is announced after it
            announce.run();
        }
        // closeAll() sets the flag, then lists the timer's leases; this added the lease, then reads the flag: one of
        // the two sees the other, and whichever ends the lease first sends its release
        if (closed && end(lease, LeaseEnd.CLOSED, true)) {
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

    /**
     * Registers work to stop when the lease ends (the one way every entry point stops its work); a lease that ended
     * already stops it at once, on this thread.
     */
    WorkStop register(Lease lease, WorkStop stop) {
        if (!lease.state().register(stop)) {
            WorkStop.stopAll(List.of(stop));
        }
        return stop;
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
     * Ends a lease once, the one path every end takes: it stops the work under the lease first ({@link WorkStop}:
     * interrupts and stop actions, directly), then takes it off the timer, then announces it: {@link
     * Lease#whenEnded()}, then the listeners' event, after the lease's earlier ones, then the library's hooks (an
     * election's bookkeeping, whose term listener hears the end after the table's listeners). The announcement runs on
     * the caller's thread if the caller ended the lease, else (a timer or worker ended it) on the event thread, where
     * users' code may run; by then the work has been told to stop, so nothing a user wrote can delay the stop.
     */
    private boolean end(Lease lease, LeaseEnd reason, boolean byCaller) {
        LeaseState state = lease.state();
        List<WorkStop> stops = state.finish(reason);
        if (stops == null) {
            return false;
        }
        WorkStop.stopWork(stops);
        timer.remove(lease);
        memory.leave(lease.name());
        if (byCaller && !Scheduler.onTimerOrWorker()) {
            state.announceEnd();
        } else {
            listeners.dispatch(state::announceEnd);
        }
        if (reason == LeaseEnd.LOST || reason == LeaseEnd.EXPIRED) {
            listeners.onLost(lease, reason);
        } else {
            listeners.onReleased(lease);
        }
        WorkStop.runHooks(stops);
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
        transact(lease, writes, false);
    }

    /**
     * Steps 7 and 6 in one request: the writes and the release apply together or not at all. Once applied, the lease
     * ends as released (a renewal that found the owner gone in between may have ended it as lost first).
     */
    void commitAndRelease(Lease lease, List<TransactWriteItem> writes) {
        transact(lease, writes, true);
        if (end(lease, LeaseEnd.RELEASED, true)) {
            log.debug("Committed and released lock '{}' (fencing token {})", lease.name(), lease.fencingToken());
            releasedHere.accept(lease.name());
        }
    }

    private void transact(Lease lease, List<TransactWriteItem> writes, boolean release) {
        if (!lease.isHeld()) {
            throw new LeaseLostException(
                    lease.name(),
                    lease.fencingToken(),
                    "it ended (" + lease.end().orElse(LeaseEnd.EXPIRED) + ")",
                    null);
        }
        heldCheck(lease); // refuses a table without transactions before anything is sent
        try {
            store.transactWrite(lease.ref(), writes, release);
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
        closed = true;
        List<Lease> leases = timer.leases(); // after the flag: a lease started meanwhile is ended by its start
        List<Lease> toSend = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            boolean live = lease.isHeld();
            if (end(lease, LeaseEnd.CLOSED, true) && live) {
                toSend.add(lease);
            }
        }
        timer.close();
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
}
