package io.locktable;

import io.locktable.LeaseKeeper.LeaseState;
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
 * One acquisition of a lock: held until it is released, lost to another holder, or runs out. Its {@link LockTable}
 * renews it every third of its duration on a shared scheduler; the holder does nothing to keep it.
 *
 * <p>A lease ends for its holder at the send time of its last successful renewal (or of the acquire) plus its
 * duration, on this process's monotonic clock, so the holder stops believing it holds the lock before any
 * contender can take it over. Work that must not happen after the lease ended is fenced: with {@link #heldCheck()}
 * in a DynamoDB transaction, or with {@link #fencingToken()} handed to a system that refuses tokens lower than one
 * it has seen.
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
     * The lease bound to the calling thread: during a term of {@link LockTable#runAsLeader}, the term's lease on
     * the work's thread; inside {@link #callAsCurrent(Callable)}, that lease. Code deep in the work fences its
     * writes with {@code Lease.current().orElseThrow().heldCheck()} without the lease passed down.
     *
     * @return the current lease, or empty outside a term
     */
    public static Optional<Lease> current() {
        ArrayDeque<Binding> bound = BOUND.get();
        Binding last = bound == null ? null : bound.peekLast();
        return last == null ? Optional.empty() : Optional.ofNullable(last.lease);
    }

    /**
     * Runs an action with this lease bound as {@link #current()} on the calling thread, then restores what was
     * bound before. Frameworks use it to run a leader's call; the lease is not released afterwards.
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
     * Binds this lease as {@link #current()} on the calling thread until the returned binding is closed, which
     * restores what was bound before: for frameworks whose hooks come before and after the work rather than around
     * it (a ShedLock provider's {@code lock} and {@code unlock}, say). Close it on the same thread, in the reverse
     * order of binding.
     *
     * <pre>{@code
     * Lease.Binding binding = lease.bindAsCurrent();   // in the framework's "before" hook
     * ...                                             // the job: Lease.current() is this lease
     * binding.close();                                 // in its "after" hook, on the same thread
     * }</pre>
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
     * A lease bound as {@link #current()} on one thread by {@link #bindAsCurrent()}; closing it unbinds it, and the
     * lease bound before it is current again. Bindings closed out of order unbind just themselves. Closing one again,
     * or from another thread, does nothing.
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

    /**
     * The name of the lock.
     *
     * @return the lock name
     */
    public String name() {
        return name;
    }

    /**
     * The owner id written to the item: unique to this one acquisition. It is the {@link LockTable#owner()} of the
     * table that acquired it, a dot and the acquisition's number, so no other acquisition, even of the same table
     * after the item was deleted, matches this lease's release or held check.
     *
     * <pre>{@code
     * boolean ours = locks.read("report").flatMap(LockRecord::owner).filter(lease.owner()::equals).isPresent();
     * }</pre>
     *
     * @return the owner id
     */
    public String owner() {
        return keeper.ownerOf(acquisition);
    }

    /**
     * The fencing token of this acquisition: the tokens of one lock strictly increase from one acquisition to the
     * next, so a system that refuses a token lower than one it has seen refuses a stale holder's writes.
     *
     * @return the fencing token, 1 or more
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * How long the lease lasts without a renewal.
     *
     * @return the lease duration
     */
    public Duration duration() {
        return duration;
    }

    /**
     * When this lease was acquired, on the wall clock (for display only).
     *
     * @return the acquire instant
     */
    public Instant acquiredAt() {
        return Instant.ofEpochMilli(acquiredAtMillis);
    }

    /**
     * When this lease was last renewed, on the wall clock (for display only); the acquire time before the first
     * renewal.
     *
     * @return the instant of the last renewal's send
     */
    public Instant renewedAt() {
        return state.renewedAt();
    }

    /**
     * Tells whether this acquisition took the lock over from a holder that had stopped renewing it.
     *
     * @return true for a takeover, false when the lock was free
     */
    public boolean tookOver() {
        return tookOver;
    }

    /**
     * Tells whether this process still holds the lease: not released, not lost, and renewed within its duration
     * on the monotonic clock. The reference's "Ended" is {@code !isHeld()}.
     *
     * @return true while the lease is held
     */
    public boolean isHeld() {
        return state.isHeld(keeper.nanoTime());
    }

    /**
     * How much of the lease is left before it ends unless renewed.
     *
     * @return the time left, {@link Duration#ZERO} once the lease ended
     */
    public Duration remaining() {
        return state.remaining(keeper.nanoTime());
    }

    /**
     * Completes when the lease ends, with why. An end found by the caller's own thread ({@link #release()}, {@link
     * #close()}, a {@link #transactWrite} whose held check failed) completes it on that thread; an end found by the
     * table (a renewal that shows the lock taken, a lease that ran out) completes it on the table's event thread,
     * never on a thread that renews leases. Use the {@code ...Async} methods for anything slow.
     *
     * @return a future that completes with the reason the lease ended; it never completes exceptionally
     */
    public CompletableFuture<LeaseEnd> whenEnded() {
        return state.whenEnded();
    }

    /**
     * How the lease ended.
     *
     * @return the reason, or empty while the lease has not ended
     */
    public Optional<LeaseEnd> end() {
        return Optional.ofNullable(state.end());
    }

    /**
     * A transaction item that checks, atomically with the other writes of a {@code TransactWriteItems}, that this
     * acquisition still holds the lock: a {@code ConditionCheck} on the lock item, {@code owner = :me AND fence =
     * :myFence}. A transaction that carries it applies nothing once another holder has the lock.
     *
     * <pre>{@code
     * client.transactWriteItems(r -> r.transactItems(lease.heldCheck(), putOrder));
     * }</pre>
     *
     * @return the condition check
     */
    public TransactWriteItem heldCheck() {
        return keeper.heldCheck(this);
    }

    /**
     * Sends {@link #heldCheck()} and the given items in one {@code TransactWriteItems}: they are applied only if
     * this acquisition still holds the lock. An item must not target the lock item itself.
     *
     * @param items the writes to fence
     * @throws LeaseLostException if the lease is no longer held, locally or on the table; nothing was applied
     * @throws software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException if the transaction was
     *     cancelled for any other reason: a condition or conflict of the other items, throttling, or a {@code
     *     TransactionConflict} on the lock item itself, met when this lease's renewal was writing it at that
     *     moment; nothing was applied, and the lease is still held, so the caller may retry
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException for other failures of the request
     */
    public void transactWrite(TransactWriteItem... items) {
        Objects.requireNonNull(items, "items");
        keeper.transactWrite(this, List.of(items));
    }

    /**
     * Releases the lease: this process stops believing it holds the lock at once, then a conditional write removes
     * its owner so a waiting contender takes it at its next poll. The item stays with its fencing token. A lease
     * that was lost is not written at all, so a release never disturbs a new holder. A release that fails to reach
     * DynamoDB is logged; the lock then frees itself after one lease.
     */
    public void release() {
        keeper.release(this, LeaseEnd.RELEASED);
    }

    /**
     * Releases the lease once {@code delay} has passed on the lock table's clock, from its timer; until then the
     * lease renews as usual, and a loss ends it as usual. A delay of zero or less releases now, on the caller's
     * thread. A lock kept for a minimum hold after its work ended is released this way, without a thread waiting.
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
        keeper.releaseAfter(this, delay.isNegative() ? 0 : saturatedNanos(delay));
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
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
    void onEnd(Runnable hook) {
        keeper.onEnd(this, hook);
    }
}
