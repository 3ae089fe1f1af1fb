package io.locktable;

import io.locktable.Scheduler.Workers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One call of {@link LockTable#acquireAsync} (or, by {@link #once}, {@link LockTable#tryAcquireAsync}): the waiting
 * acquire of {@link Acquirer#next} whose pauses hold no thread. Each attempt is a task on the workers, each pause one
 * on the timer; a handover cancels the pause, the table's close ends the wait. The caller's future completes on the
 * table's completion executor, never on the table's threads; a lease won for a future cancelled meanwhile is released at once.
 *
 * <p>A wait is kept even while the workers are busy: its attempts queue with the wait's end as their deadline (the
 * workers take the earliest first, and add a worker for one that waited too long), the timer ends the wait at its
 * deadline whatever the workers do, no attempt starts after it, and a lease answered after it is released.
 */
final class AsyncAcquire<T> {

    private final Acquirer acquirer;
    private final LockClock clock;
    private final Workers workers;
    private final Executor completions;
    private final BooleanSupplier tableClosed;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    /** How the attempt's lease is delivered: the lease itself, or the lease or empty for one attempt. */
    private final Function<Optional<Lease>, T> delivered;

    private final boolean once;
    private final Acquirer.Waiting waiting;

    /**
     * Where the acquire is; every change is one compare-and-set, so no lock is held and no flag orders another:
     * {@code NEW → QUEUED → RUNNING → (Paused → QUEUED → RUNNING)… → OVER}, and {@code RAN_OUT} when the deadline ends
     * it first.
     */
    private final AtomicReference<State> state = new AtomicReference<>(Phase.NEW);

    /** The timer's task that ends the wait when it runs out, if it has one. */
    private final AtomicReference<@Nullable Future<?>> deadline = new AtomicReference<>();

    private sealed interface State permits Phase, Paused {}

    private enum Phase implements State {
        /** Still being set up: {@link #start()} looks at the close itself. */
        NEW,
        /** An attempt is queued for the workers. */
        QUEUED,
        /** An attempt is on a worker. */
        RUNNING,
        /** Won, failed or cancelled: no attempt follows. */
        OVER,
        /** The deadline ended the wait: an attempt under way delivers nothing. */
        RAN_OUT
    }

    /** Between two attempts: the timer's task that queues the next one, once scheduled. */
    private static final class Paused implements State {
        volatile @Nullable Future<?> timer;

        void cancel() {
            Future<?> task = timer;
            if (task != null) {
                task.cancel(false);
            }
        }
    }

    private AsyncAcquire(
            Acquirer acquirer,
            LockClock clock,
            Workers workers,
            Executor completions,
            BooleanSupplier tableClosed,
            String name,
            Duration lease,
            long maxWaitNanos,
            boolean once,
            Function<Optional<Lease>, T> delivered) {
        this.acquirer = acquirer;
        this.clock = clock;
        this.workers = workers;
        this.completions = completions;
        this.tableClosed = tableClosed;
        this.once = once;
        this.delivered = delivered;
        this.waiting = once
                ? acquirer.startAttempt(name, lease, this::woken)
                : acquirer.startWaiting(name, lease, maxWaitNanos, this::woken, true);
    }

    /**
     * Starts a waiting acquire: its first attempt is queued for the workers.
     *
     * @param maxWaitNanos how long to wait, {@code Long.MAX_VALUE} for as long as it takes
     */
    static CompletableFuture<Lease> waiting(
            Acquirer acquirer,
            LockClock clock,
            Workers workers,
            Executor completions,
            BooleanSupplier tableClosed,
            String name,
            Duration lease,
            long maxWaitNanos) {
        return new AsyncAcquire<Lease>(
                        acquirer,
                        clock,
                        workers,
                        completions,
                        tableClosed,
                        name,
                        lease,
                        maxWaitNanos,
                        false,
                        Optional::orElseThrow)
                .start();
    }

    /**
     * One attempt of {@link Acquirer#tryAcquire} on a worker: cancelled before it runs it sends nothing; a lease it took
     * after a cancel is released.
     */
    static CompletableFuture<Optional<Lease>> once(
            Acquirer acquirer,
            LockClock clock,
            Workers workers,
            Executor completions,
            BooleanSupplier tableClosed,
            String name,
            Duration lease) {
        return new AsyncAcquire<Optional<Lease>>(
                        acquirer, clock, workers, completions, tableClosed, name, lease, 0, true, taken -> taken)
                .start();
    }

    private CompletableFuture<T> start() {
        result.whenComplete((value, error) -> stop()); // cancelled included: on the canceller's thread
        if (tableClosed.getAsBoolean()) {
            state.set(Phase.OVER); // a close before this did not see it started: it ends here
            fail(acquirer.closedWhileWaiting(waiting));
            return result;
        }
        state.set(Phase.QUEUED); // a close from now on ends it through woken(), or its attempt finds the table closed
        watchDeadline();
        queueAttempt();
        return result;
    }

    /**
     * A wait that can run out ends on the timer at its deadline, even if its attempt is still queued behind busy
     * workers or under way: the caller hears {@link java.util.concurrent.TimeoutException} on time.
     */
    private void watchDeadline() {
        long maxWait = waiting.maxWaitNanos;
        if (once || maxWait <= 0 || !Timing.isWaitDeadline(maxWait)) {
            return; // one attempt (a wait of zero: its attempt is made when taken), or a wait as long as it takes
        }
        Future<?> task;
        try {
            task = clock.schedule(this::deadlinePassed, maxWait - (clock.nanoTime() - waiting.startNanos));
        } catch (RejectedExecutionException closed) {
            return; // the table is closing: the close ends the wait
        }
        deadline.set(task);
        if (isOver(state.get())) {
            task.cancel(false); // stop() ran before the task was set: it could not cancel it
        }
    }

    /** On the timer: the wait ran out. A queued attempt never runs; one under way delivers nothing. */
    private void deadlinePassed() {
        State was = endAs(Phase.RAN_OUT);
        if (was != null) {
            fail(acquirer.timedOut(waiting, null));
        }
    }

    // ---- the attempts and the pauses between them

    /**
     * Queues the next attempt, with the wait's end as its deadline ({@link Timing#attemptDeadline}): a short wait is
     * served before the tasks due later, and adds a worker if it waits too long; an attempt without a wait keeps no
     * lease, so it queues behind every task that does and adds no worker: ten thousand waiters poll on the base
     * workers.
     */
    private void queueAttempt() {
        long deadlineNanos = once
                ? Timing.unhurriedDeadline(clock.nanoTime())
                : Timing.attemptDeadline(waiting.startNanos, waiting.maxWaitNanos, clock.nanoTime());
        if (!workers.run(this::attempt, deadlineNanos) && endAs(Phase.OVER) != null) {
            fail(acquirer.closedWhileWaiting(waiting)); // the workers are closed: so is the table
        }
    }

    /** On a worker: one attempt, then the lease, the error, or a pause on the timer. */
    private void attempt() {
        if (!state.compareAndSet(Phase.QUEUED, Phase.RUNNING)) {
            return; // cancelled, or ended by the deadline or the table's close, while it was queued: nothing is sent
        }
        Optional<Lease> taken;
        try {
            if (once) {
                taken = acquirer.tryAcquire(waiting.name, waiting.lease, waiting.caller);
            } else {
                Acquirer.Step step = acquirer.next(waiting);
                if (step instanceof Acquirer.Pause pause) {
                    pauseFor(pause.nanos()); // it does not throw: whatever would, ends the acquire below
                    return;
                }
                taken = Optional.of(((Acquirer.Won) step).lease());
            }
        } catch (Throwable e) { // TimeoutException, the table's close, a failed request, and Errors too
            if (!ranOut()) {
                fail(e);
            }
            return;
        }
        if (ranOut()) {
            // the deadline told the caller it ran out while this attempt was under way: never handed out
            taken.ifPresent(Lease::release);
            return;
        }
        deliver(delivered.apply(taken), taken.orElse(null));
    }

    /** After a busy attempt: the timer queues the next one, unless a handover or the close came meanwhile. */
    private void pauseFor(long nanos) {
        Paused paused = new Paused();
        if (!state.compareAndSet(Phase.RUNNING, paused)) {
            return; // cancelled, or the deadline passed, during the attempt
        }
        if (tableClosed.getAsBoolean()) {
            // the close woke this waiter during the attempt, and its timer is going away: end here
            if (state.compareAndSet(paused, Phase.OVER)) {
                fail(acquirer.closedWhileWaiting(waiting));
            }
        } else if (acquirer.handedOver(waiting)) {
            resume(paused); // released by this very table meanwhile: the next attempt writes at once
        } else {
            try {
                paused.timer = clock.schedule(() -> resume(paused), nanos);
            } catch (RejectedExecutionException e) {
                if (state.compareAndSet(paused, Phase.OVER)) {
                    fail(acquirer.closedWhileWaiting(waiting)); // the timer is closed: so is the table
                }
                return;
            }
            if (state.get() != paused) {
                paused.cancel(); // woken, stopped or run out before its timer was set
            }
        }
    }

    /** The pause ends (its time passed, or a handover came during the attempt): the next attempt is queued, once. */
    private void resume(Paused paused) {
        if (state.compareAndSet(paused, Phase.QUEUED)) {
            queueAttempt();
        }
    }

    /**
     * A handover or the close woke this waiter (on the releasing or closing thread; must not block). During a pause the
     * pause ends; during an attempt the wake is kept for {@link #pauseFor}.
     */
    private void woken() {
        boolean closing = tableClosed.getAsBoolean();
        if (!closing && !acquirer.handsOver()) {
            return; // a clock of the caller's own: its pauses are in its time, as a blocking acquire's are
        }
        State now = state.get();
        if (closing) {
            // the workers' queue and the timer are going away: end here, unless it is being set up (start() looks
            // at the close) or an attempt is under way (it ends when it pauses)
            if ((now == Phase.QUEUED || now instanceof Paused) && state.compareAndSet(now, Phase.OVER)) {
                if (now instanceof Paused paused) {
                    paused.cancel();
                }
                fail(acquirer.closedWhileWaiting(waiting));
            }
        } else if (now instanceof Paused paused && state.compareAndSet(paused, Phase.QUEUED)) {
            paused.cancel();
            acquirer.handedOver(waiting); // takes the wake: the next attempt writes at once
            queueAttempt();
        }
    }

    /** The attempt under way ended the acquire. {@return whether the deadline had ended it first} */
    private boolean ranOut() {
        return !state.compareAndSet(Phase.RUNNING, Phase.OVER) && state.get() == Phase.RAN_OUT;
    }

    /**
     * Ends the acquire, whatever it was doing; a pause's timer is cancelled.
     *
     * @return what it was doing, or null if it was over already
     */
    private @Nullable State endAs(Phase end) {
        while (true) {
            State now = state.get();
            if (isOver(now)) {
                return null;
            }
            if (state.compareAndSet(now, end)) {
                if (now instanceof Paused paused) {
                    paused.cancel();
                }
                return now;
            }
        }
    }

    private static boolean isOver(State state) {
        return state == Phase.OVER || state == Phase.RAN_OUT;
    }

    /** The caller's future completed (won, failed or cancelled): no pause or attempt follows, no handover. */
    private void stop() {
        endAs(Phase.OVER);
        Future<?> watch = deadline.getAndSet(null);
        if (watch != null) {
            watch.cancel(false); // a long wait that ended early leaves no task on the timer
        }
        acquirer.stopWaiting(waiting);
    }

    private void fail(Throwable error) {
        CompletableFuture.runAsync(() -> result.completeExceptionally(error), completions);
    }

    // ---- completing the caller's future off the table's threads

    /** Completes the caller's future on the completion executor; if it was cancelled, releases the lease. */
    private void deliver(T value, @Nullable Lease lease) {
        CompletableFuture.runAsync(
                () -> {
                    if (!result.complete(value) && lease != null) {
                        release(lease, clock, workers);
                    }
                },
                completions);
    }

    /** Releases a lease nobody will hear of, on a worker (or here, once the table is closed). */
    static void release(Lease lease, LockClock clock, Workers workers) {
        if (!workers.run(lease::release, clock.nanoTime() + lease.durationNanos())) {
            lease.release();
        }
    }
}
