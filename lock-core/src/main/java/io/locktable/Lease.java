package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * One acquisition of a lock: held until released, lost to another holder, or run out. Its {@link LockTable} renews
 * it every third of its duration; the holder does nothing to keep it. It ends for its holder at the send time of its
 * last successful renewal plus its duration, on this process's monotonic clock, so the holder stops believing before
 * any contender can take over. Fence work that must not happen after the end with {@link #heldCheck()} in a
 * transaction, or with {@link #fencingToken()}.
 *
 * <pre>{@code
 * try (Lease lease = locks.tryAcquire("cache-refresh", Duration.ofSeconds(30)).orElse(null)) {
 *     if (lease == null) {
 *         return; // another process holds it
 *     }
 *     lease.transactWrite(TransactWriteItem.builder().put(putOrder).build());
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #release()} and {@link #close()} are idempotent.
 */
public final class Lease implements AutoCloseable {

    /** The bindings of each thread, the current one last; a binding closed out of order leaves the others. */
    private static final ThreadLocal<@Nullable ArrayDeque<Binding>> BOUND = new ThreadLocal<>();

    // A table may hold a hundred thousand leases: each field here is paid per lease, so what can be derived is (the
    // owner from the keeper, nanoseconds from the duration), and what changes lives in the keeper's LeaseState.
    private final LeaseKeeper keeper;
    private final LeaseState state;
    private final String name;
    private final long acquisition; // with the keeper's owner, this acquisition's owner id
    private final long fencingToken;
    private final Duration duration;
    private final long acquiredAtMillis;
    private final boolean tookOver;

    Lease(
            LeaseKeeper keeper,
            String name,
            long acquisition,
            long fencingToken,
            UUID recordVersion,
            Duration duration,
            long sentNanos,
            Instant acquiredAt,
            boolean tookOver) {
        this.keeper = keeper;
        this.name = name;
        this.acquisition = acquisition;
        this.fencingToken = fencingToken;
        this.duration = duration;
        this.acquiredAtMillis = acquiredAt.toEpochMilli();
        this.tookOver = tookOver;
        this.state = new LeaseState(recordVersion, sentNanos + duration.toNanos(), acquiredAtMillis);
    }

    /**
     * The lease bound to the calling thread: a leader term's on its work's thread, or the one of {@link
     * #callAsCurrent(Callable)}, so code deep in the work can fence with {@code Lease.current().orElseThrow().heldCheck()}.
     *
     * @return the current lease, or empty outside a term
     */
    public static Optional<Lease> current() {
        ArrayDeque<Binding> bound = BOUND.get();
        Binding last = bound == null ? null : bound.peekLast();
        return last == null ? Optional.empty() : Optional.ofNullable(last.lease);
    }

    /**
     * Runs an action with this lease bound as {@link #current()} on the calling thread, then restores what was bound
     * before. The lease is not released afterwards.
     *
     * @param action the action
     * @param <T> what the action returns
     * @return what the action returned
     * @throws Exception what the action threw
     */
    public <T> T callAsCurrent(Callable<T> action) throws Exception {
        Objects.requireNonNull(action, "action");
        try (Binding binding = bindAsCurrent()) {
            return action.call();
        }
    }

    /**
     * Binds this lease as {@link #current()} on the calling thread until the returned binding is closed, for frameworks
     * whose hooks come before and after the work (a ShedLock provider's {@code lock} and {@code unlock}). Close it on the
     * same thread, in reverse order of binding.
     *
     * @return the binding, to close once the work is done
     */
    public Binding bindAsCurrent() {
        return bind(this);
    }

    /** Makes no lease current on the calling thread until the binding is closed (context propagation). */
    static Binding bindNone() {
        return bind(null);
    }

    private static Binding bind(@Nullable Lease lease) {
        ArrayDeque<Binding> bound = BOUND.get();
        if (bound == null) {
            bound = new ArrayDeque<>(2);
            BOUND.set(bound);
        }
        Binding binding = new Binding(lease, Thread.currentThread());
        bound.addLast(binding);
        return binding;
    }

    /**
     * A lease bound as {@link #current()} on one thread; closing it makes the lease bound before current again.
     * Bindings closed out of order unbind just themselves; closing again, or from another thread, does nothing.
     */
    public static final class Binding implements AutoCloseable {
        private final @Nullable Lease lease; // null: no lease is current while this binding lasts
        private final Thread thread;

        private Binding(@Nullable Lease lease, Thread thread) {
            this.lease = lease;
            this.thread = thread;
        }

        /** Unbinds the lease on the binding's thread; does nothing on another thread or a second time. */
        @Override
        public void close() {
            if (Thread.currentThread() != thread) {
                return;
            }
            ArrayDeque<Binding> bound = BOUND.get();
            if (bound != null && bound.removeLastOccurrence(this) && bound.isEmpty()) {
                BOUND.remove();
            }
        }
    }

    /** @return the name of the lock */
    public String name() {
        return name;
    }

    /**
     * The owner id written to the item, unique to this acquisition: the table's {@link LockTable#owner()}, a dot and
     * the acquisition's number, so no other acquisition matches this lease's release or held check.
     *
     * @return the owner id
     */
    public String owner() {
        return keeper.ownerOf(acquisition);
    }

    /**
     * The fencing token: the tokens of one lock strictly increase from one acquisition to the next, so a system that
     * refuses a token lower than one it has seen refuses a stale holder's writes.
     *
     * @return the fencing token, 1 or more
     */
    public long fencingToken() {
        return fencingToken;
    }

    /** @return how long the lease lasts without a renewal */
    public Duration duration() {
        return duration;
    }

    /** @return when this lease was acquired, on the wall clock (for display only) */
    public Instant acquiredAt() {
        return Instant.ofEpochMilli(acquiredAtMillis);
    }

    /** @return when this lease was last renewed (or acquired), on the wall clock (for display only) */
    public Instant renewedAt() {
        return state.renewedAt();
    }

    /** @return true if this acquisition took the lock over from a holder that had stopped renewing it */
    public boolean tookOver() {
        return tookOver;
    }

    /**
     * Whether this process still holds the lease: not released, not lost, and renewed within its duration on the
     * monotonic clock.
     *
     * @return true while the lease is held
     */
    public boolean isHeld() {
        return state.isHeld(keeper.nanoTime());
    }

    /** @return how much of the lease is left unless renewed, {@link Duration#ZERO} once it ended */
    public Duration remaining() {
        return state.remaining(keeper.nanoTime());
    }

    /**
     * Completes when the lease ends, with why: on the caller's thread for an end it caused ({@link #release()}, a
     * failed {@link #transactWrite}, the table's close), otherwise on the table's event thread before the listeners
     * hear the end; never on one that renews leases, and not on the {@link LockTable.Builder#completionExecutor}.
     * It completes after the work registered with {@link #interruptOnEnd()} and {@link #stopOnEnd(Runnable)} was
     * told to stop; to stop work, use those: a listener busy on the event thread delays this future, not them.
     *
     * @return a future of the reason; it never completes exceptionally
     */
    public CompletableFuture<LeaseEnd> whenEnded() {
        return state.whenEnded();
    }

    /**
     * Interrupts the calling thread as soon as this lease ends (lost, run out, released or closed with its table), from
     * the path that decides the end: before {@link #whenEnded()} completes and before any listener hears of it, so
     * that nothing a user wrote can hold the stop up. Close the registration when the work is done, on the same thread:
     * an interrupt that was this lease's is then cleared, so it does not reach what the thread does next. A lease that
     * has ended already interrupts the thread at once.
     *
     * <pre>{@code
     * try (Lease.Registration stop = lease.interruptOnEnd()) {
     *     while (!Thread.currentThread().isInterrupted()) {
     *         copyNextBatch(lease.fencingToken());
     *     }
     * }
     * }</pre>
     *
     * @return the registration, to close when the work under this lease is done
     */
    public Registration interruptOnEnd() {
        return keeper.register(this, WorkStop.interrupt(name, Thread.currentThread()))::close;
    }

    /**
     * Runs {@code stop} once as soon as this lease ends (lost, run out, released or closed with its table), before
     * {@link #whenEnded()} completes and before any listener hears of it: to cancel work that runs on other threads.
     * It runs on a thread of its own when the table's own threads end the lease (a lost renewal, a lease run out), so it
     * never holds up a renewal, and on the thread that ended it otherwise (a {@link #release()}, the table's close). A
     * lease that has ended already runs it at once, on the calling thread. Keep it short; what it throws is logged.
     *
     * <pre>{@code
     * CompletableFuture<Void> copy = copier.startAsync(lease.fencingToken());
     * Lease.Registration stop = lease.stopOnEnd(() -> copy.cancel(true));
     * copy.whenComplete((done, error) -> stop.close());
     * }</pre>
     *
     * @param stop what stops the work
     * @return the registration, to close when the work under this lease is done
     * @throws NullPointerException if {@code stop} is null
     */
    public Registration stopOnEnd(Runnable stop) {
        Objects.requireNonNull(stop, "stop");
        return keeper.register(this, WorkStop.action(name, stop))::close;
    }

    /**
     * Work registered to stop when its lease ends ({@link #interruptOnEnd()}, {@link #stopOnEnd(Runnable)}). Closing it
     * says the work is done: its stop will not run any more. Idempotent.
     */
    public interface Registration extends AutoCloseable {
        /** Ends the registration: the lease's end no longer stops this work. Never throws. */
        @Override
        void close();
    }

    /** @return how the lease ended, or empty while it has not */
    public Optional<LeaseEnd> end() {
        return Optional.ofNullable(state.end());
    }

    /**
     * A {@code ConditionCheck} on the lock item, {@code owner = :me AND fence = :myFence}, for a {@code
     * TransactWriteItems}: the transaction applies nothing once another holder has the lock.
     *
     * <pre>{@code
     * client.transactWriteItems(r -> r.transactItems(lease.heldCheck(), putOrder));
     * }</pre>
     *
     * @return the condition check
     * @throws IllegalStateException on a global table with multi-Region strong consistency, which has no transactions
     */
    public TransactWriteItem heldCheck() {
        return keeper.heldCheck(this);
    }

    /**
     * Sends {@link #heldCheck()} and the items in one {@code TransactWriteItems}: applied only if this acquisition still
     * holds the lock. No item may target the lock item itself.
     *
     * @param items the writes to fence
     * @throws LeaseLostException if the lease is no longer held, locally or on the table; nothing was applied
     * @throws software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException if cancelled for another
     *     reason (the other items' conditions, throttling, a conflict with this lease's own renewal); nothing was
     *     applied, the lease is still held, and the caller may retry
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException for other failures of the request
     */
    public void transactWrite(TransactWriteItem... items) {
        Objects.requireNonNull(items, "items");
        keeper.transactWrite(this, List.of(items));
    }

    /**
     * Writes {@code items} and releases this lease in one {@code TransactWriteItems}: two requests for a whole
     * protected cycle (the acquire, then this), where {@link #transactWrite} and {@link #release()} take three. The
     * release is the transaction's check: it applies only while this acquisition holds the lock, so the items and the
     * release apply together or not at all, and a lease lost to another holder writes nothing and never disturbs it.
     * Once applied, the lease has ended as {@link LeaseEnd#RELEASED} and a waiter of this table takes the lock at once.
     * If the transaction is refused for one of your items' conditions, nothing applied and the lease is still held.
     * The items must not touch the lock item. Needs an engine with transactions. Like {@link #release()}, it ends the
     * lease, so work registered on it is stopped: called inside {@code runLocked} or {@link #interruptOnEnd()}, it
     * interrupts its own thread (the registration's close clears that interrupt).
     *
     * <pre>{@code
     * try (Lease lease = locks.acquire("invoice-42", Duration.ofSeconds(30), Duration.ofSeconds(45))) {
     *     Invoice invoice = invoices.build(42);
     *     lease.commitAndRelease(TransactWriteItem.builder().put(invoices.put(invoice)).build());
     * } // the close after commitAndRelease does nothing
     * }</pre>
     *
     * @param items the writes, at most 99 (DynamoDB's limit of 100 less the lock item's release)
     * @throws LeaseLostException if the lease has ended, or the release's condition showed it lost (nothing applied)
     * @throws software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException if one of the items' own
     *     conditions failed: nothing applied, the lease is still held
     * @throws IllegalStateException on a global table with multi-Region strong consistency, which has no
     *     transactions
     * @throws NullPointerException if {@code items} or one of them is null
     */
    public void commitAndRelease(TransactWriteItem... items) {
        Objects.requireNonNull(items, "items");
        keeper.commitAndRelease(this, List.of(items));
    }

    /**
     * Releases the lease: this process stops believing at once, then a write conditional on owner and fence removes
     * the owner (the item and its token stay). A lost lease sends nothing. A release that fails is logged; the lock then
     * frees itself after one lease.
     */
    public void release() {
        keeper.release(this, LeaseEnd.RELEASED);
    }

    /**
     * Releases the lease once {@code delay} has passed on the table's clock, from its timer; it renews (or is lost)
     * as usual until then. Zero or less releases now, on the caller's thread.
     *
     * <pre>{@code
     * lease.releaseAfter(Duration.ofSeconds(30)); // the job ran in 2 s; other instances skip it for 30 s more
     * }</pre>
     *
     * @param delay how long to keep the lease first
     * @throws NullPointerException if {@code delay} is null
     */
    public void releaseAfter(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        keeper.releaseAfter(this, delay.isNegative() ? 0 : Timing.saturatedNanos(delay));
    }

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        LeaseEnd end = state.end();
        return "Lease[" + name + ", fencingToken=" + fencingToken + ", owner=" + owner() + ", "
                + (end == null ? "held" : end.toString()) + "]";
    }

    // ---- for the keeper, the timer and the leader loop

    /** What changes in this lease: the keeper's and the timer's, never guarded by the lease itself. */
    LeaseState state() {
        return state;
    }

    /** What the store needs of this lease for a request. */
    LockStore.LeaseRef ref() {
        return new LockStore.LeaseRef(name, owner(), fencingToken, duration);
    }

    long durationNanos() {
        return duration.toNanos();
    }

    /** Not ended yet (its time may have run out, unnoticed so far by the timer). */
    boolean isLive() {
        return state.isLive();
    }

    /**
     * Runs {@code hook} once the lease ends, on the thread that ends it (at once if it has ended): for a leader
     * term, whose work must be interrupted by the path that ends the lease, not behind listener callbacks. The hook
     * must not block; it runs once.
     */
    /** Runs the library's {@code hook} on the path that ends this lease, after its work was stopped; must not block. */
    void onEnd(Runnable hook) {
        keeper.register(this, WorkStop.hook(name, hook));
    }
}
