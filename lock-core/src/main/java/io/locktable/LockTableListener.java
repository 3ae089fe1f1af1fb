package io.locktable;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Hears what a {@link LockTable} does, for meters, health and logs; every method has an empty default. Calls come
 * one at a time on the table's event thread, in the order the events happened (for one lease: acquired, renewed any
 * number of times, then lost or released), never on a thread that renews leases; a slow listener delays later events
 * but no renewal. Anything thrown, an {@link Error} included, is logged and ignored. With a {@link LockClock} of the
 * caller's own, listeners run on the thread that did the work. With {@link
 * LockTable.Builder#propagateContextToListeners}, the context of an acquire's caller (its current observation, say) is
 * current while its start and finish are heard.
 *
 * <pre>{@code
 * LockTable locks = LockTable.builder(client, "Shop", "pk")
 *         .listener(new LockTableListener() {
 *             public void onLost(Lease lease, LeaseEnd reason) {
 *                 log.warn("lost {} ({})", lease.name(), reason);
 *             }
 *         })
 *         .build();
 * }</pre>
 */
public interface LockTableListener {

    /**
     * A lease was acquired.
     *
     * @param lease the new lease
     * @param tookOver true when it was taken over from a holder that stopped renewing
     */
    default void onAcquired(Lease lease, boolean tookOver) {}

    /**
     * An acquire attempt found the lock held by another holder.
     *
     * @param name the lock
     * @param holder the item as this attempt saw it
     */
    default void onBusy(String name, LockRecord holder) {}

    /**
     * A call of {@code tryAcquire}, {@code acquire}, their async forms or {@code runLocked} started, or a leadership
     * began to contend (its first attempt, or the first after a failure). At most one {@link
     * #onAcquireFinished(String, long, AcquireOutcome, Duration, boolean) onAcquireFinished} with the same id follows:
     * exactly one for the calls (unless the table closes), none for a leadership stopped while it contends. Calls of
     * one name may overlap and finish in any order: the id tells them apart. With {@link
     * LockTable.Builder#propagateContextToListeners} the context of the call's caller is current here and in the
     * finish (a leadership has none).
     *
     * @param name the lock
     * @param acquireId identifies this acquire: its finish carries the same id, no other acquire in this JVM has it
     */
    default void onAcquireStarted(String name, long acquireId) {}

    /**
     * An acquire finished.
     *
     * @param name the lock
     * @param acquireId the id its {@link #onAcquireStarted(String, long) start} carried
     * @param outcome how it ended
     * @param elapsed how long the call took, on the monotonic clock
     * @param waited true if it found the lock held and waited for a later attempt (then its time says nothing about
     *     DynamoDB)
     */
    default void onAcquireFinished(
            String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {}

    /** @param lease a lease that was renewed */
    default void onRenewed(Lease lease) {}

    /**
     * A renewal failed; it is retried until the lease's end.
     *
     * @param lease the lease
     * @param error the error
     */
    default void onRenewalFailed(Lease lease, Exception error) {}

    /**
     * A renewal started late: it waited for a worker past a tenth of its period (a slow engine, or more leases than
     * the workers renew). Leases are lost if this grows to a whole lease: raise {@link
     * LockTable.Builder#schedulerThreads} or the leases long before.
     *
     * @param lease the lease whose renewal started late
     * @param lateness how late it started
     */
    default void onRenewalLate(Lease lease, Duration lateness) {}

    /**
     * A lease ended without its holder releasing it.
     *
     * @param lease the lease
     * @param reason {@link LeaseEnd#LOST} or {@link LeaseEnd#EXPIRED}
     */
    default void onLost(Lease lease, LeaseEnd reason) {}

    /** @param lease a lease released by its holder or by {@link LockTable#close()} */
    default void onReleased(Lease lease) {}

    /**
     * A lock's fencing token went back: its item was deleted, or a table that writes in several regions granted
     * it twice. A system that checks tokens will refuse the new holder's writes.
     *
     * @param name the lock
     * @param highestSeen the highest token this table had seen for the lock
     * @param fencingToken the lower token seen now
     */
    default void onFenceRegressed(String name, long highestSeen, long fencingToken) {}

    /** @param name the lock a request that succeeded was for */
    default void onRequestSucceeded(String name) {}

    /**
     * A request failed (after the client's retries), for any reason but a failed condition.
     *
     * @param name the lock it was for
     * @param error the error
     */
    default void onRequestFailed(String name, Exception error) {}

    /**
     * An acquire of a leadership failed with an error it retries: a transient one, after a third of the lease, or any
     * error of an election started with a {@code retryAfterError}, after that.
     *
     * @param name the lock led on
     * @param error the error
     * @param failuresInRow how many acquires have failed in a row, this one included
     */
    default void onLeadershipError(String name, Exception error, int failuresInRow) {}

    /**
     * A listener that forwards each event to the listeners {@code source} names at that time, for frameworks whose
     * listeners are created after the lock table; one that throws is logged and the others still hear the event.
     *
     * @param source what to forward to, asked at each event; it must not block
     * @return the forwarding listener
     * @throws NullPointerException if the source is null
     */
    static LockTableListener forwardingTo(Supplier<? extends Iterable<? extends LockTableListener>> source) {
        return new Listeners(java.util.Objects.requireNonNull(source, "source"), Runnable::run);
    }
}
