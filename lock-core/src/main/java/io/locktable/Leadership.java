package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running election on one lock, as a handle: {@link LockTable#lead(String, Duration)} starts it, and it acquires
 * the lock, holds it while its lease lasts, contends again when it is lost, and retries transient errors, as {@link
 * LockTable#runAsLeader} does (which is built on it). Ask it whether this process leads, get the term's lease to
 * fence writes, wait on {@link #whenStopped()}, {@link #stepDown(Duration)} to hand the lock to another process for
 * a while, and {@link #close()} it to stop: the lease is released so another process takes over at its next poll.
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
 * <p>It has no thread of its own: each attempt is a task on the table's scheduler (its timer waits between polls,
 * one of its workers sends the requests), so a process may lead on thousands of locks with the table's few threads.
 * A caller that needs to react to terms passes a {@link LeaderTermListener}, which runs on the table's event thread,
 * in order. Thread-safe.
 */
public final class Leadership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final LockTable table;
    private final String name;
    private final Duration leaseDuration;
    private final LockClock clock;
    private final LeaderTermListener termListener;
    private final Listeners listeners;
    private final Terms terms;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Object state = new Object();

    private @Nullable Lease current; // guarded by state
    private @Nullable Future<?> nextAttempt; // guarded by state: the timer's task of the next attempt
    private boolean stopping; // guarded by state
    private boolean releasingToStop; // guarded by state: stopAsync() releases the term's lease, then finishes
    private long outUntilNanos; // guarded by state; 0 while no step-down keeps this process out
    private boolean steppedDown; // guarded by state: the current term is being released by a step-down
    private int failuresInRow; // touched by one attempt at a time
    private long contendingSinceNanos; // touched by one attempt at a time
    private int attempts; // touched by one attempt at a time

    /**
     * What the caller of {@link LockTable#runAsLeader} hears, at once, on the thread that started or ended the term
     * (never behind listener callbacks): a term's start and end. Both must not block.
     */
    interface Terms {
        Terms NONE = new Terms() {};

        default void started(Lease lease) {}

        default void ended(Lease lease) {}
    }

    Leadership(
            LockTable table,
            String name,
            Duration leaseDuration,
            LeaderTermListener termListener,
            Terms terms,
            Listeners listeners,
            LockClock clock) {
        this.table = table;
        this.name = name;
        this.leaseDuration = leaseDuration;
        this.termListener = termListener;
        this.terms = terms;
        this.listeners = listeners;
        this.clock = clock;
    }

    void start() {
        contendingSinceNanos = clock.nanoTime();
        schedule(0);
    }

    /**
     * The name of the lock.
     *
     * @return the lock name
     */
    public String name() {
        return name;
    }

    /**
     * Tells whether this process leads now: a term's lease is held.
     *
     * @return true while leading
     */
    public boolean isLeader() {
        return lease().isPresent();
    }

    /**
     * The lease of the current term, to fence writes with.
     *
     * @return the lease, or empty while this process does not lead
     */
    public Optional<Lease> lease() {
        Lease lease;
        synchronized (state) {
            lease = current;
        }
        return lease != null && lease.isHeld() ? Optional.of(lease) : Optional.empty();
    }

    /**
     * Hands the lock to another process: releases the current term's lease, if any, so that another process takes
     * over at its next poll, and keeps this one out of the election for {@code coolDown}; then it contends again.
     * Returns once the lease is released (the release is bounded, at most 5 s). On a process that does not lead it
     * only keeps it out for the cool-down, and a term won by an acquire already on its way is handed back at once.
     * A call during a cool-down lengthens it if its own ends later, and never shortens it.
     *
     * <pre>{@code
     * leadership.stepDown(Duration.ofMinutes(1)); // before a rolling restart of this instance
     * }</pre>
     *
     * @param coolDown how long this process stays out of the election; zero contends again at once
     * @throws IllegalArgumentException if the cool-down is negative
     * @throws NullPointerException if the cool-down is null
     */
    public void stepDown(Duration coolDown) {
        Objects.requireNonNull(coolDown, "coolDown");
        if (coolDown.isNegative()) {
            throw new IllegalArgumentException(
                    "the cool-down of a step-down from leadership of lock '" + name + "' is negative: " + coolDown);
        }
        Lease lease;
        synchronized (state) {
            long until = clock.nanoTime() + coolDown.toNanos();
            if (outUntilNanos == 0 || until - outUntilNanos > 0) {
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
            lease.release(); // the term's end contends again after the cool-down
        }
    }

    /**
     * Completes when the election has stopped: normally after {@link #close()} or {@link #stopAsync()} (or when the
     * lock table closed, or the term's lease was released from outside), exceptionally when it ended on an error
     * that is not transient, such as a missing table or a foreign item at the lock's key.
     *
     * @return a future that completes when the election has stopped, its lease released
     */
    public CompletableFuture<Void> whenStopped() {
        return stopped.copy();
    }

    /**
     * Steps down and stops contending without waiting: the current term's lease, if any, is released on the table's
     * workers, and no attempt follows. For a caller that bounds its own wait, such as an application's shutdown.
     *
     * <pre>{@code
     * leadership.stopAsync().get(2, TimeUnit.SECONDS);
     * }</pre>
     *
     * @return {@link #whenStopped()}: completes once the lease is released
     */
    public CompletableFuture<Void> stopAsync() {
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
            // sent on a worker so this call does not wait; stopped once the release was sent and the term listener
            // heard the end (queued on the event thread by the release, before this)
            Runnable releaseThenFinish = () -> {
                lease.release();
                listeners.dispatchOrRun(() -> finish(null));
            };
            if (!table.workers().run(releaseThenFinish, clock.nanoTime() + lease.durationNanos())) {
                releaseThenFinish.run();
            }
        } else if (idle) {
            finish(null);
        }
        return whenStopped();
    }

    /**
     * Steps down and stops contending: releases the current term's lease, if any, and waits for the election to
     * stop, at most the release's own bound (5 s) plus a second. An interrupt does not cut the wait short; the
     * thread's interrupt flag is kept.
     */
    @Override
    public void close() {
        CompletableFuture<Void> done = stopAsync();
        boolean interrupted = false;
        long deadline = System.nanoTime() + Timing.RELEASE.plusSeconds(1).toNanos();
        while (!done.isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                done.get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
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

    // ---- the election, as tasks on the table's scheduler

    /** The next attempt, after {@code delayNanos} on the table's timer, then on one of its workers. */
    private void schedule(long delayNanos) {
        synchronized (state) {
            if (stopping) {
                nextAttempt = null;
            } else {
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
                    nextAttempt = null; // the table closed: stop below
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
            attempt = table.acquirer().attemptForLeader(name, leaseDuration, attempts == 1 || failuresInRow > 0);
        } catch (RuntimeException | Error e) {
            failedAttempt(e);
            return;
        }
        answered();
        if (attempt instanceof Acquirer.Acquired acquired) {
            Lease lease = acquired.lease();
            table.acquirer().leaderAcquired(name, lease, contendingSinceNanos, attempts > 1);
            termStarted(lease);
        } else {
            Acquirer.Busy busy = (Acquirer.Busy) attempt;
            schedule(Timing.pollPause(busy.holderLeaseNanos(), busy.untilDueNanos(), ThreadLocalRandom.current()));
        }
    }

    private void failedAttempt(Throwable error) {
        if (table.isClosed()) {
            finish(null);
            return;
        }
        table.acquirer().leaderAcquireFailed(name, contendingSinceNanos, attempts > 1);
        if (!(error instanceof RuntimeException runtime) || !LockStore.isTransient(runtime)) {
            log.error("Leadership of lock '{}' in table '{}' ended: {}", name, table.tableName(), error.toString());
            finish(error);
            return;
        }
        failuresInRow++;
        if (failuresInRow == 1) {
            log.warn(
                    "Leadership of lock '{}' in table '{}': acquire failed, trying again every {} until it works: {}",
                    name,
                    table.tableName(),
                    Duration.ofNanos(Timing.leaderRetry(leaseDuration)),
                    error.toString());
        } else {
            log.debug(
                    "Leadership of lock '{}': acquire failed again ({} in a row): {}",
                    name,
                    failuresInRow,
                    error.toString());
        }
        listeners.onLeadershipError(name, runtime, failuresInRow);
        schedule(Timing.leaderRetry(leaseDuration));
    }

    private void answered() {
        if (failuresInRow > 0) {
            log.info(
                    "Leadership of lock '{}' in table '{}': DynamoDB answers again after {} failed acquires",
                    name,
                    table.tableName(),
                    failuresInRow);
            failuresInRow = 0;
        }
    }

    /** A term starts with a lease just acquired, unless the election stopped or stepped down meanwhile. */
    private void termStarted(Lease lease) {
        if (!lease.isHeld()) {
            restartContending(0); // answered after a whole lease: no term
            return;
        }
        boolean handBack;
        synchronized (state) {
            handBack = stopping || (outUntilNanos != 0 && outUntilNanos - clock.nanoTime() > 0);
            if (!handBack) {
                current = lease;
                steppedDown = false;
            }
        }
        if (handBack) {
            lease.release(); // a step-down or a stop came while the acquire was on its way
            if (isStopping()) {
                finish(null);
            } else {
                restartContending(0);
            }
            return;
        }
        terms.started(lease);
        listeners.dispatch(() -> call(termListener::onTermStarted, lease, "onTermStarted"));
        lease.onEnd(() -> termEnded(lease)); // on the path that ends the lease, at once
    }

    /** The term's lease ended (on the thread that ended it: must not block): contend again, or stop. */
    private void termEnded(Lease lease) {
        boolean stepDown;
        boolean stop;
        boolean stopFinishesElsewhere;
        synchronized (state) {
            if (current != lease) {
                return; // not the term this leadership holds now
            }
            current = null;
            stepDown = steppedDown;
            steppedDown = false;
            LeaseEnd end = lease.end().orElse(LeaseEnd.EXPIRED);
            stop = stopping
                    || end == LeaseEnd.CLOSED
                    || (end == LeaseEnd.RELEASED && !stepDown); // released from outside: the leadership is over
            stopFinishesElsewhere = releasingToStop;
        }
        terms.ended(lease);
        LeaseEnd end = lease.end().orElse(LeaseEnd.EXPIRED);
        if (stop) {
            // stopped once the term listener heard the end: a caller of whenStopped() sees every callback done
            listeners.dispatchOrRun(() -> {
                call(termListener::onTermEnded, lease, "onTermEnded");
                if (!stopFinishesElsewhere) {
                    finish(null);
                }
            });
        } else {
            listeners.dispatch(() -> call(termListener::onTermEnded, lease, "onTermEnded"));
            if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
                log.info(
                        "Leadership of lock '{}' ended: lease {} (fencing token {}); contending again",
                        name,
                        end,
                        lease.fencingToken());
            }
            restartContending(0); // a step-down's cool-down is looked at by the attempt
        }
    }

    private void restartContending(long delayNanos) {
        contendingSinceNanos = clock.nanoTime();
        attempts = 0;
        schedule(delayNanos);
    }

    /**
     * The table has closed: every lease of it has ended, and its workers and timer dropped what they had queued, a
     * release or an attempt of this election among them. The election has stopped, then, whether or not those ran.
     */
    void tableClosed() {
        finish(null);
    }

    private boolean isStopping() {
        synchronized (state) {
            return stopping;
        }
    }

    /** Stops once, with the lease released: the table forgets it, and {@link #whenStopped()} completes. */
    private void finish(@Nullable Throwable error) {
        synchronized (state) {
            if (current != null) {
                return; // its lease's end finishes it
            }
            stopping = true;
            nextAttempt = null;
        }
        if (error == null) {
            stopped.complete(null);
        } else {
            stopped.completeExceptionally(error);
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
