package io.locktable;

import io.locktable.LockStore.StoredLock;
import io.locktable.Scheduler.Workers;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;

/**
 * The acquires of one table (steps 2 to 4). An attempt writes at once to a lock it has not seen held, else reads
 * first and writes only when the lock is free or its holder kept one record version for a whole lease. A waiting
 * acquire is a series of attempts ({@link #next}) a poll apart: {@link #acquire} sleeps between them, {@link
 * AsyncAcquire} pauses on the timer; a release by this table wakes it at once ({@link Handover}).
 */
final class Acquirer {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /** The ids of acquires for the listeners: unique in the JVM, so a listener of several tables can match by id. */
    private static final AtomicLong ACQUIRE_IDS = new AtomicLong();

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

    /** What a waiting acquire does after an attempt ({@link #next}). */
    sealed interface Step permits Won, Pause {}

    /** The attempt took the lock: the acquire is over. */
    record Won(Lease lease) implements Step {}

    /** The lock is held, or the request had no answer: the next attempt comes after this pause (step 4). */
    record Pause(long nanos) implements Step {}

    /** One waiting acquire between its attempts, blocking or not. */
    static final class Waiting {
        final String name;
        /** The id its events carry; 0 for an attempt that tryAcquire reports. */
        final long id;

        final Duration lease;
        final long maxWaitNanos;
        final long startNanos;
        final Handover.Waiter waiter;
        /** Whether its outcome goes to the listeners from here: not for an attempt that tryAcquire reports. */
        final boolean reportsOutcome;
        /** Whether its outcome went to the listeners: once, by whichever ends it first (an attempt, a cancel). */
        final AtomicBoolean ended = new AtomicBoolean();
        /** Whether it paused at least once: reported with the outcome. Touched by one attempt at a time. */
        boolean waited;
        /**
         * Whether its wait is kept to the nanosecond, as a non-blocking acquire's must be, whose caller gave up at the
         * deadline ({@link AsyncAcquire}): no attempt starts after it, and a lease answered after it is released, not
         * handed out. A blocking acquire returns what its last attempt answered, within {@link Timing#SHORTEST}.
         */
        final boolean strictWait;
        /** Whether an attempt of it was made: touched by one attempt at a time. */
        boolean attempted;
        /** The context of its caller, current while the listeners hear its start and its outcome. */
        final CallerContext caller;

        private Waiting(
                String name,
                long id,
                Duration lease,
                long maxWaitNanos,
                long startNanos,
                Handover.Waiter waiter,
                boolean reportsOutcome,
                boolean strictWait,
                CallerContext caller) {
            this.strictWait = strictWait;
            this.name = name;
            this.id = id;
            this.lease = lease;
            this.maxWaitNanos = maxWaitNanos;
            this.startNanos = startNanos;
            this.waiter = waiter;
            this.reportsOutcome = reportsOutcome;
            this.caller = caller;
        }
    }

    private final LockStore store;
    private final LockClock clock;
    private final Workers workers;
    private final Listeners listeners;
    /** The fence marks and the holders this table saw: kept while a name is in use here, a bounded few after. */
    private final LockMemory memory;

    private final LeaseKeeper keeper;
    private final Handover handover;
    private final boolean realTime;
    private final BooleanSupplier tableClosed;
    private final CallerContext.Capture callerContext;

    /**
     * @param realTime whether the clock is real time, so a wait may end early on a handover
     * @param tableClosed whether the table was closed: a waiting acquire ends then
     * @param callerContext captures, on the thread that calls an acquire, what its listener calls see current
     */
    Acquirer(
            LockStore store,
            LockClock clock,
            Workers workers,
            Listeners listeners,
            LockMemory memory,
            LeaseKeeper keeper,
            Handover handover,
            boolean realTime,
            BooleanSupplier tableClosed,
            CallerContext.Capture callerContext) {
        this.store = store;
        this.clock = clock;
        this.workers = workers;
        this.listeners = listeners;
        this.memory = memory;
        this.keeper = keeper;
        this.handover = handover;
        this.realTime = realTime;
        this.tableClosed = tableClosed;
        this.callerContext = callerContext;
    }

    /** One attempt, for {@link LockTable#tryAcquire}, on the caller's thread: empty if another holder has the lock. */
    Optional<Lease> tryAcquire(String name, Duration lease) {
        return tryAcquire(name, lease, callerContext.capture());
    }

    /**
     * One attempt, for {@link LockTable#tryAcquire} or, on a worker, a queued one of {@link
     * LockTable#tryAcquireAsync}.
     *
     * @param caller the context of the caller, captured on its thread
     */
    Optional<Lease> tryAcquire(String name, Duration lease, CallerContext caller) {
        long id = started(name, caller);
        long start = clock.nanoTime();
        try {
            Attempt attempt = attempt(name, lease, Long.MAX_VALUE);
            if (attempt instanceof Acquired acquired) {
                finished(name, id, outcomeOf(acquired.lease()), start, false, caller);
                return Optional.of(acquired.lease());
            }
            finished(name, id, AcquireOutcome.BUSY, start, false, caller);
            return Optional.empty();
        } catch (RuntimeException e) {
            finished(name, id, AcquireOutcome.ERROR, start, false, caller);
            throw e;
        }
    }

    /**
     * Attempts until one wins, sleeping through the pauses, for {@link LockTable#acquire}.
     *
     * @param maxWaitNanos how long to wait, {@code Long.MAX_VALUE} for as long as it takes
     */
    Lease acquire(String name, Duration lease, long maxWaitNanos) throws InterruptedException, TimeoutException {
        Waiting waiting = startWaiting(name, lease, maxWaitNanos, null, false);
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("acquire of lock '" + name + "' was interrupted");
                }
                Step step;
                try {
                    step = next(waiting);
                } catch (AbortedException e) {
                    Thread.interrupted();
                    InterruptedException interrupted =
                            new InterruptedException("acquire of lock '" + name + "' was interrupted during a request");
                    interrupted.initCause(e);
                    throw interrupted;
                }
                if (step instanceof Won won) {
                    return won.lease();
                }
                pause(waiting, ((Pause) step).nanos());
            }
        } finally {
            stopWaiting(waiting);
        }
    }

    /**
     * A waiting acquire starts, on the caller's thread, enlisted for a handover.
     *
     * @param onWake for a waiter that holds no thread: run (without blocking) when a handover or the close wakes it
     * @param strictWait whether the wait is kept to the nanosecond ({@link Waiting#strictWait})
     */
    Waiting startWaiting(
            String name, Duration lease, long maxWaitNanos, @Nullable Runnable onWake, boolean strictWait) {
        CallerContext caller = callerContext.capture();
        long id = started(name, caller);
        memory.enter(name); // the holder it sees is remembered between its attempts, until it stops waiting
        return new Waiting(
                name,
                id,
                lease,
                maxWaitNanos,
                clock.nanoTime(),
                handover.enlist(name, onWake),
                true,
                strictWait,
                caller);
    }

    /**
     * A queued attempt of {@link LockTable#tryAcquireAsync}, on the caller's thread: enlisted only to hear the close
     * ({@code onClose}, which must not block). Its events come from {@link #tryAcquire(String, Duration,
     * CallerContext)} when it runs, with the context captured here.
     */
    Waiting startAttempt(String name, Duration lease, Runnable onClose) {
        memory.enter(name); // in use while queued, as a waiting acquire: left in stopWaiting
        return new Waiting(
                name,
                0,
                lease,
                0,
                clock.nanoTime(),
                handover.enlistForClose(name, onClose),
                false,
                false,
                callerContext.capture());
    }

    /** A waiting acquire ended, however; one without an outcome yet reports {@link AcquireOutcome#CANCELLED}. */
    void stopWaiting(Waiting waiting) {
        ended(waiting, AcquireOutcome.CANCELLED);
        handover.leave(waiting.waiter);
        memory.leave(waiting.name);
    }

    /**
     * One attempt of a waiting acquire and what it does next, the same for {@link LockTable#acquire} and {@link
     * LockTable#acquireAsync}; the outcome goes to the listeners when it ends here.
     *
     * @throws TimeoutException if the lock stayed held for the whole wait
     * @throws IllegalStateException if the table closed meanwhile
     * @throws AbortedException if the thread was interrupted during a request
     */
    Step next(Waiting waiting) throws TimeoutException {
        String name = waiting.name;
        long maxWaitNanos = waiting.maxWaitNanos;
        try {
            checkOpen(name);
            long waitLeft = maxWaitNanos - (clock.nanoTime() - waiting.startNanos);
            if (waiting.strictWait && waitLeft <= 0 && (maxWaitNanos > 0 || waiting.attempted)) {
                // its caller gives up now: nothing is sent (a wait of zero makes its one attempt when it is taken)
                throw timedOut(waiting, null);
            }
            waiting.attempted = true;
            Attempt attempt;
            try {
                attempt = attempt(name, waiting.lease, waitLeft);
            } catch (ApiCallTimeoutException | ApiCallAttemptTimeoutException e) {
                long left = maxWaitNanos - (clock.nanoTime() - waiting.startNanos);
                if (left <= 0) {
                    // the request was cut short by the caller's wait, not by the lease's timeout
                    throw timedOut(waiting, e);
                }
                // a request that outlasted the timeout the lease gives it is no answer, neither busy nor free:
                // a waiting acquire asks again, within its wait (an applied write was given back already)
                checkOpen(name);
                log.debug(
                        "Acquire of lock '{}' in table '{}': a request timed out, asking again",
                        name,
                        store.tableName());
                waiting.waited = true;
                return new Pause(Math.min(left, Timing.raceRetry(ThreadLocalRandom.current())));
            }
            if (attempt instanceof Acquired acquired) {
                if (waiting.strictWait
                        && maxWaitNanos > 0
                        && clock.nanoTime() - waiting.startNanos - maxWaitNanos > 0) {
                    // answered after its caller gave up: never handed out, so this worker gives it back now
                    acquired.lease().release();
                    throw timedOut(waiting, null);
                }
                ended(waiting, outcomeOf(acquired.lease()));
                return new Won(acquired.lease());
            }
            long elapsed = clock.nanoTime() - waiting.startNanos;
            if (elapsed >= maxWaitNanos) {
                throw timedOut(waiting, null);
            }
            Busy busy = (Busy) attempt;
            long pause = Math.min(
                    Timing.pollPause(busy.holderLeaseNanos(), busy.untilDueNanos(), ThreadLocalRandom.current()),
                    maxWaitNanos - elapsed);
            waiting.waited = true;
            return new Pause(pause);
        } catch (AbortedException e) {
            throw e; // the caller's interrupt: no outcome, as for an interrupt between attempts
        } catch (RuntimeException e) {
            ended(waiting, AcquireOutcome.ERROR);
            throw e;
        }
    }

    /**
     * For a waiter that holds no thread: whether this table released the lock since its last attempt (real time
     * only); if so the next attempt writes at once.
     */
    boolean handedOver(Waiting waiting) {
        if (realTime && handover.woken(waiting.waiter)) {
            memory.forgetHolder(waiting.name);
            return true;
        }
        return false;
    }

    /** Whether a release by this table ends a pause: with the system clock only (see {@link #pause}). */
    boolean handsOver() {
        return realTime;
    }

    /** A waiter that holds no thread learns the table closed: the acquire ends. */
    IllegalStateException closedWhileWaiting(Waiting waiting) {
        ended(waiting, AcquireOutcome.ERROR);
        return closedWhileAcquiring(waiting.name);
    }

    /**
     * A leadership's acquire starts: the listeners hear it, with no caller's context (it has no caller). {@return its
     * id, for its finish}
     */
    long leaderAcquireStarted(String name) {
        return started(name, CallerContext.NONE);
    }

    /** An acquire starts: the listeners hear it with its caller's context. {@return its id, for its finish} */
    private long started(String name, CallerContext caller) {
        long id = ACQUIRE_IDS.incrementAndGet();
        listeners.onAcquireStarted(name, id, caller);
        return id;
    }

    /**
     * One attempt of a {@link Leadership}, never waiting; the first of an acquire follows {@link
     * #leaderAcquireStarted}.
     */
    Attempt attemptForLeader(String name, Duration lease) {
        checkOpen(name);
        return attempt(name, lease, Long.MAX_VALUE);
    }

    /**
     * A leadership's acquire ended: with a term, or an error. It is measured from its first attempt.
     *
     * @param lease the term's lease, or null if the attempt failed
     */
    void leaderAcquireFinished(String name, long id, @Nullable Lease lease, long sinceNanos, boolean waited) {
        finished(
                name,
                id,
                lease == null ? AcquireOutcome.ERROR : outcomeOf(lease),
                sinceNanos,
                waited,
                CallerContext.NONE);
    }

    /**
     * An election on the lock begins: the holder it sees is remembered across its attempts, however many other names
     * the table tries meanwhile, until {@link #stopContending}.
     */
    void startContending(String name) {
        memory.enter(name);
    }

    /** An election begun with {@link #startContending} stopped. */
    void stopContending(String name) {
        memory.leave(name);
    }

    /** The table closes: every waiting acquire wakes, and ends on finding the table closed. */
    void close() {
        handover.closeAll();
    }

    /** A strongly consistent read, for {@link LockTable#read}. */
    @Nullable
    StoredLock read(String name, Duration timeout) {
        memory.enter(name);
        try {
            long sent = clock.nanoTime();
            StoredLock stored = store.read(name, timeout);
            if (stored != null) {
                memory.observed(name, stored.fence(), sent, clock.nanoTime());
            }
            return stored;
        } finally {
            memory.leave(name);
        }
    }

    /** Sleeps until the next poll; with the system clock a release by this table ends the sleep at once. */
    private void pause(Waiting waiting, long nanos) throws InterruptedException {
        if (!realTime) {
            clock.sleep(nanos); // a clock of the caller's own: its time is not real time
        } else if (handover.await(waiting.waiter, nanos)) {
            memory.forgetHolder(waiting.name); // released by this very table: the next attempt writes at once
        }
    }

    /** A waiting acquire ends as soon as the table closes: it would never be renewed. */
    private void checkOpen(String name) {
        if (tableClosed.getAsBoolean()) {
            throw closedWhileAcquiring(name);
        }
    }

    private IllegalStateException closedWhileAcquiring(String name) {
        return new IllegalStateException(
                "lock table " + store.tableName() + " was closed while lock '" + name + "' was being acquired");
    }

    /**
     * The wait ran out: the listeners hear {@link AcquireOutcome#TIMEOUT}, once, and the caller gets the exception.
     *
     * @param cause the request the wait cut short, if any
     */
    TimeoutException timedOut(Waiting waiting, @Nullable Exception cause) {
        ended(waiting, AcquireOutcome.TIMEOUT);
        TimeoutException timeout = new TimeoutException("lock '" + waiting.name + "' in table '" + store.tableName()
                + "' stayed held for the whole wait of " + Duration.ofNanos(waiting.maxWaitNanos));
        if (cause != null) {
            timeout.initCause(cause);
        }
        return timeout;
    }

    /** A waiting acquire's outcome goes to the listeners once: the first to end it reports it. */
    private void ended(Waiting waiting, AcquireOutcome outcome) {
        if (waiting.reportsOutcome && waiting.ended.compareAndSet(false, true)) {
            finished(waiting.name, waiting.id, outcome, waiting.startNanos, waiting.waited, waiting.caller);
        }
    }

    private static AcquireOutcome outcomeOf(Lease lease) {
        return lease.tookOver() ? AcquireOutcome.TAKEN_OVER : AcquireOutcome.ACQUIRED;
    }

    private void finished(
            String name, long id, AcquireOutcome outcome, long startNanos, boolean waited, CallerContext caller) {
        listeners.onAcquireFinished(name, id, outcome, Duration.ofNanos(clock.nanoTime() - startNanos), waited, caller);
    }

    /**
     * One attempt.
     *
     * @param waitLeftNanos how long the caller still waits; no request outlasts it
     */
    private Attempt attempt(String name, Duration lease, long waitLeftNanos) {
        memory.enter(name);
        try {
            return attemptInUse(name, lease, waitLeftNanos);
        } finally {
            memory.leave(name);
        }
    }

    private Attempt attemptInUse(String name, Duration lease, long waitLeftNanos) {
        Protocol.Seen seen = memory.seen(name);
        if (!Protocol.readsFirst(seen)) {
            return write(name, lease, null, waitLeftNanos); // step 2
        }
        long sent = clock.nanoTime(); // step 4: read first
        StoredLock current = store.read(name, Timing.readTimeout(lease, waitLeftNanos));
        long answered = clock.nanoTime();
        if (current != null && current.isHeld()) {
            memory.observed(name, current.fence(), sent, answered);
        }
        long waitLeft = waitLeftNanos - (answered - sent);
        Protocol.Next next = Protocol.afterRead(seen, current, answered);
        if (next instanceof Protocol.TakeOver takeOver) {
            return write(name, lease, takeOver.seenRvn(), waitLeft);
        }
        if (next instanceof Protocol.Busy busy) {
            return busy(name, Objects.requireNonNull(current), busy);
        }
        memory.forgetHolder(name);
        return write(name, lease, null, waitLeft);
    }

    private Attempt write(String name, Duration lease, @Nullable String seenRvn, long waitLeftNanos) {
        UUID version = UUID.randomUUID(); // random, so no two writers ever pick the same
        String rvn = version.toString();
        long acquisition = keeper.nextAcquisition();
        String acquisitionOwner = keeper.ownerOf(acquisition);
        Instant wall = clock.instant();
        long sent = clock.nanoTime();
        LockStore.AcquireRequest request = new LockStore.AcquireRequest(
                name,
                seenRvn,
                acquisitionOwner,
                rvn,
                lease,
                wall,
                memory.highest(name),
                Timing.acquireTimeout(lease, waitLeftNanos));
        LockStore.AcquireAnswer answer;
        try {
            answer = store.acquire(request);
        } catch (RuntimeException | Error e) {
            if (LockStore.mayHaveApplied(e)) {
                GiveBack unanswered = new GiveBack(name, acquisitionOwner, rvn, lease, sent, LockStore.mayLandLater(e));
                Runnable giveBack = () -> giveBack(unanswered, Timing.FIRST_GIVE_BACK_RETRY_NANOS);
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
        Protocol.Busy busy = Protocol.afterRefusal(memory.seen(name), holder, answered); // step 3
        if (holder == null || busy.seen() == null) {
            return new Busy(-1, -1); // it moved on under a racing contender: try again soon
        }
        memory.observed(name, holder.fence(), sent, answered);
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
        memory.forgetHolder(name);
        memory.granted(name, mine.fence(), sent, answered);
        memory.enter(name); // the lease keeps the mark until it ends (LeaseKeeper)
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

    /** Remembers the holder the decision saw (its first sight: {@link LockMemory#saw}) and tells the listeners. */
    private Busy busy(String name, StoredLock holder, Protocol.Busy busy) {
        Protocol.Seen seen = busy.seen();
        if (seen != null) {
            memory.saw(name, seen);
        }
        listeners.onBusy(holder.name(), holder.toRecord());
        return new Busy(busy.untilDueNanos(), busy.holderLeaseNanos());
    }

    /**
     * An acquire whose answer never came.
     *
     * @param sentNanos when it was sent
     * @param mayLandLater whether the client gave up before any answer (I/O, a timeout, an interrupt): the request may
     *     still be on its way, and be applied after a give-back found nothing
     */
    private record GiveBack(
            String name, String owner, String rvn, Duration lease, long sentNanos, boolean mayLandLater) {}

    /**
     * Gives back an unanswered acquire if it was applied. A failed attempt is retried with back-off while the lease it
     * may have taken could be held; a write that may land later is looked for again until {@link
     * Timing#lateWriteChecksEnd}.
     */
    private void giveBack(GiveBack unanswered, long retryNanos) {
        String name = unanswered.name();
        long leaseEnd = unanswered.sentNanos() + unanswered.lease().toNanos();
        long left = leaseEnd - clock.nanoTime();
        if (left <= 0) {
            return; // whatever it took has run out by now
        }
        try {
            if (store.giveBack(name, unanswered.owner(), unanswered.rvn(), Timing.giveBackTimeout(left))) {
                log.info("Gave back lock '{}' whose acquire was applied but not answered", name);
            } else if (unanswered.mayLandLater()
                    && retryLater(
                            unanswered,
                            retryNanos,
                            Timing.lateWriteChecksEnd(unanswered.sentNanos(), unanswered.lease()))) {
                log.debug(
                        "Unanswered acquire of lock '{}' not applied yet; it may still land, so it is looked for again",
                        name);
            } else {
                log.debug("Unanswered acquire of lock '{}' was not applied", name);
            }
        } catch (RuntimeException | Error e) {
            log.debug("Could not give back the unanswered acquire of lock '{}' yet: {}", name, e.toString());
            retryLater(unanswered, retryNanos, leaseEnd);
        }
    }

    /** @return whether the give-back will be tried again after {@code retryNanos} (only before {@code untilNanos}) */
    private boolean retryLater(GiveBack unanswered, long retryNanos, long untilNanos) {
        if (retryNanos - (untilNanos - clock.nanoTime()) >= 0) {
            return false; // the lease it may have taken runs out, or the write cannot land any more, before then
        }
        long next = Math.min(retryNanos * 2, Timing.LAST_GIVE_BACK_RETRY_NANOS);
        try {
            clock.schedule(() -> workers.run(() -> giveBack(unanswered, next), unanswered.sentNanos()), retryNanos);
            return true;
        } catch (RejectedExecutionException closed) {
            log.info(
                    "Lock table '{}' closed before the unanswered acquire of lock '{}' could be given back; if it"
                            + " was applied, the lock frees itself after its lease of {}",
                    store.tableName(),
                    unanswered.name(),
                    unanswered.lease());
            return false;
        }
    }
}
