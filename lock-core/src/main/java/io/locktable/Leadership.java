package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running election on one lock, started by {@link LockTable#lead(String, Duration)}: it acquires the lock, holds
 * it while its lease lasts, contends again when it is lost, and retries transient errors. Ask it whether this process
 * leads, take the term's lease to fence writes, {@link #stepDown(Duration)} to hand the lock on for a while, and
 * {@link #close()} it to stop, releasing the lease so another process takes over at its next poll.
 *
 * <pre>{@code
 * try (Leadership leadership = locks.lead("order-sweeper", Duration.ofSeconds(30))) {
 *     while (running) {
 *         leadership.lease().ifPresent(lease -> sweep(lease)); // fenced with lease.heldCheck()
 *         Thread.sleep(60_000);
 *     }
 * }
 * }</pre>
 *
 * <p>It has no thread of its own: each attempt is a task on the table's timer and workers. A {@link
 * LeaderTermListener} hears the terms on the table's event thread. Thread-safe.
 */
public final class Leadership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final ElectionContext table;
    private final String name;
    private final Duration leaseDuration;
    private final LockClock clock;
    private final LeaderTermListener termListener;
    private final Listeners listeners;
    private final Terms terms;
    private final @Nullable Duration retryAfterError; // null: an error that is not transient ends the election
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Object state = new Object();
    /** What follows each release queued on the workers ({@link #releaseOnWorker}), until it runs. */
    private final Set<Runnable> releasing = ConcurrentHashMap.newKeySet();
    /** Whether it contends: from its start until it stops once, while its table remembers the holders it sees. */
    private final AtomicBoolean contending = new AtomicBoolean();

    private @Nullable Lease current; // guarded by state
    private @Nullable Future<?> nextAttempt; // guarded by state: the timer's task of the next attempt
    private boolean stopping; // guarded by state
    private boolean releasingToStop; // guarded by state: stopAsync() releases the term's lease, then finishes
    private long outUntilNanos; // guarded by state; 0 while no step-down keeps this process out
    private boolean steppedDown; // guarded by state: the current term is being released by a step-down
    private volatile int failuresInRow; // written by one attempt at a time
    private volatile @Nullable Failure lastFailure;
    private long contendingSinceNanos; // touched by one attempt at a time
    private int attempts; // touched by one attempt at a time
    private long acquireId; // touched by one attempt at a time: the listeners' id of the acquire under way

    private record Failure(Throwable error, Instant at) {}

    /**
     * What {@link LockTable#runAsLeader} hears at once, on the thread that starts a term: must not block. (A term's end
     * stops its work through the lease's own registration, {@link Lease#interruptOnEnd()}.)
     */
    interface Terms {
        Terms NONE = lease -> {};

        void started(Lease lease);
    }

    Leadership(
            ElectionContext table,
            String name,
            Duration leaseDuration,
            LeaderTermListener termListener,
            Terms terms,
            Listeners listeners,
            LockClock clock,
            @Nullable Duration retryAfterError) {
        this.table = table;
        this.name = name;
        this.leaseDuration = leaseDuration;
        this.termListener = termListener;
        this.terms = terms;
        this.listeners = listeners;
        this.clock = clock;
        this.retryAfterError = retryAfterError;
    }

    void start() {
        contending.set(true);
        table.acquirer().startContending(name); // the holder it sees is remembered between its polls
        contendingSinceNanos = clock.nanoTime();
        schedule(0);
    }

    /** {@return the name of the lock} */
    public String name() {
        return name;
    }

    /** {@return true while this process leads: a term's lease is held} */
    public boolean isLeader() {
        return lease().isPresent();
    }

    /** {@return the lease of the current term, to fence writes with; empty while this process does not lead} */
    public Optional<Lease> lease() {
        Lease lease;
        synchronized (state) {
            lease = current;
        }
        return lease != null && lease.isHeld() ? Optional.of(lease) : Optional.empty();
    }

    /**
     * {@return how many attempts to acquire failed in a row (transient errors, and any error of an election started
     * with a {@code retryAfterError}); 0 once an attempt is answered}
     */
    public int failuresInRow() {
        return failuresInRow;
    }

    /** {@return the last error of an attempt to acquire, kept after a recovery, for a status page; or empty} */
    public Optional<Throwable> lastError() {
        return Optional.ofNullable(lastFailure).map(Failure::error);
    }

    /** {@return when the {@link #lastError()} happened, on the table's {@link LockClock#instant()}; or empty} */
    public Optional<Instant> lastErrorAt() {
        return Optional.ofNullable(lastFailure).map(Failure::at);
    }

    /**
     * Hands the lock to another process: releases the current term's lease, if any, so another process takes over
     * at its next poll, and keeps this one out of the election for {@code coolDown}; then it contends again. Returns
     * once the lease is released (at most 5 s). On a process that does not lead it only keeps it out, and a term won
     * by an acquire already on its way is handed back at once. A later cool-down lengthens an earlier one, never
     * shortens it.
     *
     * <pre>{@code
     * leadership.stepDown(Duration.ofMinutes(1)); // before a rolling restart of this instance
     * }</pre>
     *
     * @param coolDown how long this process stays out of the election; zero contends again at once; one too long to
     *     count ({@code ChronoUnit.FOREVER.getDuration()}) keeps it out for good
     * @throws IllegalArgumentException if the cool-down is negative
     * @throws NullPointerException if the cool-down is null
     */
    public void stepDown(Duration coolDown) {
        Lease lease = beginStepDown(coolDown);
        if (lease != null) {
            lease.release(); // the term's end contends again after the cool-down
        }
    }

    /**
     * Steps down as {@link #stepDown(Duration)} does without waiting: the lease is released on the table's workers.
     *
     * <pre>{@code
     * leadership.stepDownAsync(Duration.ofMinutes(1)).thenRun(() -> log.info("handed on"));
     * }</pre>
     *
     * @param coolDown how long this process stays out of the election; zero contends again at once; one too long to
     *     count keeps it out for good
     * @return a future that completes once the lease is released and the term listener heard the term's end (at
     *     once when this process did not lead), on the table's event thread, or on the closing thread if the table
     *     closed first
     * @throws IllegalArgumentException if the cool-down is negative
     * @throws NullPointerException if the cool-down is null
     */
    public CompletableFuture<Void> stepDownAsync(Duration coolDown) {
        Lease lease = beginStepDown(coolDown);
        if (lease == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> released = new CompletableFuture<>();
        releaseOnWorker(lease, () -> released.complete(null));
        return released;
    }

    private @Nullable Lease beginStepDown(Duration coolDown) {
        Objects.requireNonNull(coolDown, "coolDown");
        if (coolDown.isNegative()) {
            throw new IllegalArgumentException(
                    "the cool-down of a step-down from leadership of lock '" + name + "' is negative: " + coolDown);
        }
        Lease lease;
        synchronized (state) {
            long now = clock.nanoTime();
            // "forever" (ChronoUnit.FOREVER) saturates as a retryAfterError does; both ends are then within half the
            // clock's range of now, so the comparison below cannot overflow
            long until = now + Timing.deadlineNanos(coolDown);
            boolean cooling = outUntilNanos != 0 && outUntilNanos - now > 0;
            if (!cooling || until - outUntilNanos > 0) {
                outUntilNanos = until == 0 ? 1 : until;
            }
            lease = current;
            steppedDown = lease != null;
        }
        if (lease != null) {
            log.info(
                    "Leadership of lock '{}': stepping down (fencing token {}); staying out for {}",
                    name,
                    lease.fencingToken(),
                    coolDown);
        }
        return lease;
    }

    /**
     * Releases on a worker (on the caller once the table closed), then runs {@code then} after the term's end. A
     * closing table's workers drop what they had queued: its close runs {@code then} instead ({@link #tableClosed}).
     */
    private void releaseOnWorker(Lease lease, Runnable then) {
        release(lease, true, then);
    }

    private void release(Lease lease, boolean onWorker, Runnable then) {
        releasing.add(then);
        Runnable release = () -> {
            lease.release();
            if (releasing.remove(then)) {
                listeners.dispatchOrRun(then); // after the term listener's onTermEnded, queued by the release
            }
        };
        if (!onWorker || !table.workers().run(release, clock.nanoTime() + lease.durationNanos())) {
            release.run();
        }
    }

    /**
     * {@return a future that completes once the election stopped, its lease released: after {@link #close()}, {@link
     * #stopAsync()}, the table's close or a release of the lease from outside; exceptionally when it ended on an error
     * that is not transient (a missing table, a foreign item at the lock's key)} It completes as {@link
     * Lease#whenEnded()} does: on the table's event thread, or on the thread that stopped an election without a lease.
     */
    public CompletableFuture<Void> whenStopped() {
        return stopped.copy();
    }

    /**
     * Steps down and stops contending without waiting: the term's lease, if any, is released on the table's workers.
     *
     * <pre>{@code
     * leadership.stopAsync().get(2, TimeUnit.SECONDS);
     * }</pre>
     *
     * @return {@link #whenStopped()}: completes once the lease is released
     */
    public CompletableFuture<Void> stopAsync() {
        return stop(true);
    }

    /** Stops contending and releases the term's lease, on a worker or on this thread. */
    private CompletableFuture<Void> stop(boolean releaseOnWorker) {
        Lease lease;
        boolean idle;
        synchronized (state) {
            if (stopping) { // finish() sets it too
                return whenStopped();
            }
            stopping = true;
            lease = current;
            releasingToStop = lease != null;
            Future<?> next = nextAttempt;
            // an attempt waiting on the timer never runs; one under way sees the stop when it is answered
            idle = lease == null && next != null && next.cancel(false);
        }
        if (lease != null) {
            release(lease, releaseOnWorker, () -> finish(null));
        } else if (idle) {
            finish(null);
        }
        return whenStopped();
    }

    /**
     * Steps down and stops contending: releases the term's lease, if any, and waits for the election to stop, at
     * most 6 s. An interrupt does not cut the wait short; the thread's interrupt flag is kept. Called from a listener
     * or a term listener (the table's event thread), it releases the lease on that thread and returns without waiting:
     * the events that complete {@link #whenStopped()} run on that thread after it.
     */
    @Override
    public void close() {
        if (listeners.onEventThread()) {
            stop(false);
            return;
        }
        CompletableFuture<Void> done = stopAsync();
        boolean interrupted = false;
        long deadline = System.nanoTime() + Timing.RELEASE.plusSeconds(1).toNanos();
        while (!done.isDone() && deadline - System.nanoTime() > 0) {
            try {
                done.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                break; // stopped on an error, or not within the bound
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + name + ", " + (isLeader() ? "leading" : "following") + "]";
    }

    /** The next attempt, after {@code delayNanos} on the table's timer, then on one of its workers. */
    private void schedule(long delayNanos) {
        synchronized (state) {
            nextAttempt = null;
            if (!stopping) {
                try {
                    nextAttempt = clock.schedule(
                            () -> {
                                if (!table.workers().run(this::attempt, clock.nanoTime() + leaseDuration.toNanos())) {
                                    finish(null); // the table closed
                                }
                            },
                            delayNanos);
                    return;
                } catch (RejectedExecutionException closed) {
                    // the table closed: stop below
                }
            }
        }
        finish(null);
    }

    /** One attempt, on a worker: steps 2 to 4 once, then a term, a wait for the next poll, or a retry. */
    private void attempt() {
        long coolingLeft;
        boolean stop;
        synchronized (state) {
            stop = stopping;
            coolingLeft = outUntilNanos == 0 ? 0 : outUntilNanos - clock.nanoTime();
            if (coolingLeft <= 0) {
                outUntilNanos = 0;
            }
        }
        if (stop) {
            finish(null);
            return;
        }
        if (coolingLeft > 0) {
            schedule(coolingLeft); // a step-down keeps this process out; looked at again when it ends
            return;
        }
        attempts++;
        Acquirer.Attempt attempt;
        try {
            if (attempts == 1 || failuresInRow > 0) {
                acquireId = table.acquirer().leaderAcquireStarted(name);
            }
            attempt = table.acquirer().attemptForLeader(name, leaseDuration);
        } catch (RuntimeException | Error e) {
            failedAttempt(e);
            return;
        }
        if (failuresInRow > 0) {
            log.info(
                    "Leadership of lock '{}' in table '{}': DynamoDB answers again after {} failed acquires",
                    name,
                    table.tableName(),
                    failuresInRow);
            failuresInRow = 0;
        }
        if (attempt instanceof Acquirer.Acquired acquired) {
            table.acquirer()
                    .leaderAcquireFinished(name, acquireId, acquired.lease(), contendingSinceNanos, attempts > 1);
            termStarted(acquired.lease());
        } else {
            Acquirer.Busy busy = (Acquirer.Busy) attempt;
            schedule(Timing.pollPause(busy.holderLeaseNanos(), busy.untilDueNanos(), ThreadLocalRandom.current()));
        }
    }

    /**
     * A transient error is retried after a third of the lease; another one ends the election, or with {@link
     * #retryAfterError} is retried after it. The first failure of a row is logged as a warning (an error with its
     * cause when not transient), later ones at debug.
     */
    private void failedAttempt(Throwable error) {
        if (table.isClosed()) {
            finish(null);
            return;
        }
        table.acquirer().leaderAcquireFinished(name, acquireId, null, contendingSinceNanos, attempts > 1);
        boolean isTransient = error instanceof RuntimeException runtime && LockStore.isTransient(runtime);
        if (!isTransient && retryAfterError == null) {
            log.error("Leadership of lock '{}' in table '{}' ended: {}", name, table.tableName(), error.toString());
            finish(error);
            return;
        }
        lastFailure = new Failure(error, clock.instant());
        int inRow = ++failuresInRow;
        long retryNanos = isTransient || retryAfterError == null
                ? Timing.leaderRetry(leaseDuration)
                : Timing.saturatedNanos(retryAfterError); // one "forever" must not overflow
        String retry = "Leadership of lock '{}' in table '{}': acquire failed, trying again every {} until it works";
        if (inRow > 1) {
            log.debug("Leadership of lock '{}': acquire failed again ({} in a row): {}", name, inRow, error.toString());
        } else if (isTransient) {
            log.warn(retry + ": {}", name, table.tableName(), Duration.ofNanos(retryNanos), error.toString());
        } else {
            log.error(retry, name, table.tableName(), Duration.ofNanos(retryNanos), error);
        }
        if (error instanceof Exception exception) {
            listeners.onLeadershipError(name, exception, inRow);
        }
        schedule(retryNanos);
    }

    /** A term starts with a lease just acquired, unless the election stopped or stepped down meanwhile. */
    private void termStarted(Lease lease) {
        if (!lease.isHeld()) {
            restartContending(); // answered after a whole lease: no term
            return;
        }
        boolean stop;
        boolean handBack;
        synchronized (state) {
            stop = stopping;
            handBack = stop || (outUntilNanos != 0 && outUntilNanos - clock.nanoTime() > 0);
            if (!handBack) {
                current = lease;
                steppedDown = false;
            }
        }
        if (handBack) {
            lease.release(); // a step-down or a stop came while the acquire was on its way
            if (stop) {
                finish(null);
            } else {
                restartContending(); // finishes if a stop came meanwhile
            }
            return;
        }
        terms.started(lease);
        listeners.dispatch(() -> call(termListener::onTermStarted, lease, "onTermStarted"));
        lease.onEnd(() -> termEnded(lease)); // on the path that ends the lease, at once
    }

    /** The term's lease ended (on the thread that ended it: must not block): contend again, or stop. */
    private void termEnded(Lease lease) {
        boolean stop;
        boolean stopFinishesElsewhere;
        LeaseEnd end = lease.end().orElse(LeaseEnd.EXPIRED);
        synchronized (state) {
            if (current != lease) {
                return; // not the term this leadership holds now
            }
            current = null;
            // released from outside (not by a step-down): the leadership is over
            stop = stopping || end == LeaseEnd.CLOSED || (end == LeaseEnd.RELEASED && !steppedDown);
            steppedDown = false;
            stopFinishesElsewhere = releasingToStop;
        }
        if (stop) {
            // stopped once the term listener heard the end: a caller of whenStopped() sees every callback done
            listeners.dispatchOrRun(() -> {
                call(termListener::onTermEnded, lease, "onTermEnded");
                if (!stopFinishesElsewhere) {
                    finish(null);
                }
            });
            return;
        }
        listeners.dispatch(() -> call(termListener::onTermEnded, lease, "onTermEnded"));
        if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
            log.info(
                    "Leadership of lock '{}' ended: lease {} (fencing token {}); contending again",
                    name,
                    end,
                    lease.fencingToken());
        }
        restartContending(); // a step-down's cool-down is looked at by the attempt
    }

    private void restartContending() {
        contendingSinceNanos = clock.nanoTime();
        attempts = 0;
        schedule(0);
    }

    /** The table closed: its workers and timer dropped what they had queued, so the election has stopped. */
    void tableClosed() {
        finish(null);
        for (Runnable then : releasing) {
            if (releasing.remove(then)) {
                listeners.dispatchOrRun(then); // a step-down's future: its lease ended with the table
            }
        }
    }

    /**
     * Stops once, with the lease released: the table forgets it, and {@link #whenStopped()} completes, on the event
     * thread if an attempt on a worker decided it (the future runs the caller's continuations).
     */
    private void finish(@Nullable Throwable error) {
        synchronized (state) {
            if (current != null) {
                // its lease's end finishes it: a stop's release that came before the term heard its lease's end
                // (the work done at once) left it to that end, which must not wait for this call any more
                releasingToStop = false;
                return;
            }
            stopping = true;
            nextAttempt = null;
        }
        if (contending.compareAndSet(true, false)) {
            table.acquirer().stopContending(name);
        }
        Runnable complete = () -> {
            if (error == null) {
                stopped.complete(null);
            } else {
                stopped.completeExceptionally(error);
            }
        };
        if (Scheduler.onTimerOrWorker()) {
            listeners.dispatchOrRun(complete);
        } else {
            complete.run();
        }
    }

    private void call(Consumer<Lease> callback, Lease lease, String which) {
        try {
            callback.accept(lease);
        } catch (RuntimeException | Error e) {
            log.warn("Leadership of lock '{}': the term listener's {} threw", name, which, e);
        }
    }
}
