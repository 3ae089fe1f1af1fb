package io.locktable;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Hears what a {@link LockTable} does, for meters, health and logs. Every method has an empty default, so a
 * listener overrides only what it needs.
 *
 * <p>Methods are called one at a time on the table's event thread, in the order the events happened: for one lease,
 * acquired, then renewed any number of times, then lost or released (or no event at all). So a listener never runs
 * on a thread that renews or expires leases, and a slow one delays later events but no renewal; it should still
 * return quickly. Anything it throws, an {@link Error} included, is logged and otherwise ignored. A table built with
 * a {@link LockClock} of the caller's own calls listeners on the thread that did the work, so a test that drives
 * time by hand sees each event at once.
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
     * A call of {@code tryAcquire} or {@code acquire} started, or a leadership began to contend: its first attempt,
     * and the first after an attempt that failed. Heard before any other event of the call, and followed by at most
     * one {@link #onAcquireFinished(String, AcquireOutcome, Duration, boolean) onAcquireFinished} of the same name:
     * exactly one for {@code tryAcquire} and {@code acquire} (unless the table closes meanwhile); none for a leadership
     * that stops while it contends.
     * Several calls of one name may be in flight at once; the events do not say which start a finish belongs to.
     *
     * @param name the lock
     */
    default void onAcquireStarted(String name) {}

    /**
     * A call of {@code tryAcquire} or {@code acquire} finished.
     *
     * @param name the lock
     * @param outcome how it ended
     * @param elapsed how long the call took, on the monotonic clock
     */
    default void onAcquireFinished(String name, AcquireOutcome outcome, Duration elapsed) {}

    /**
     * A call of {@code tryAcquire} or {@code acquire} finished, telling whether it waited for a holder: a call that
     * waited took as long as the holder held on, which says nothing about DynamoDB; one that did not took its
     * requests' time. The default calls {@link #onAcquireFinished(String, AcquireOutcome, Duration)}.
     *
     * @param name the lock
     * @param outcome how it ended
     * @param elapsed how long the call took, on the monotonic clock
     * @param waited true if it found the lock held and waited for a later attempt
     */
    default void onAcquireFinished(String name, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        onAcquireFinished(name, outcome, elapsed);
    }

    /**
     * A lease was renewed.
     *
     * @param lease the lease
     */
    default void onRenewed(Lease lease) {}

    /**
     * A renewal failed with an error that may pass; it is retried until the lease's end.
     *
     * @param lease the lease
     * @param error the error
     */
    default void onRenewalFailed(Lease lease, Exception error) {}

    /**
     * A renewal started late: it waited for a worker past a tenth of its period, because the engine answers slower
     * than renewals fall due or the table holds more leases than its workers renew. Leases are lost if this grows to
     * a whole lease; long before that it is a reason to raise {@link LockTable.Builder#schedulerThreads} or the
     * leases.
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

    /**
     * A lease was released by its holder or by {@link LockTable#close()}.
     *
     * @param lease the lease
     */
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

    /**
     * A request to the table succeeded.
     *
     * @param name the lock it was for
     */
    default void onRequestSucceeded(String name) {}

    /**
     * A request to the table failed (after the client's retries), for any reason but a lost condition.
     *
     * @param name the lock it was for
     * @param error the error
     */
    default void onRequestFailed(String name, Exception error) {}

    /**
     * An acquire of a leadership loop failed with a transient error; the loop contends again after a third of
     * the lease.
     *
     * @param name the lock led on
     * @param error the error
     * @param failuresInRow how many acquires have failed in a row, this one included
     */
    default void onLeadershipError(String name, Exception error, int failuresInRow) {}

    /**
     * A listener that forwards every event to the listeners {@code source} names at the time of the event, each in
     * turn; one that throws is logged and the others still hear the event. Frameworks use it to reach listeners
     * that are created after the lock table.
     *
     * <pre>{@code
     * LockTable.builder(client, "Shop", "pk")
     *         .listener(LockTableListener.forwardingTo(() -> registry.currentListeners()))
     *         .build();
     * }</pre>
     *
     * @param source what to forward to, asked at each event; it must not block
     * @return the forwarding listener
     * @throws NullPointerException if the source is null
     */
    static LockTableListener forwardingTo(Supplier<? extends Iterable<? extends LockTableListener>> source) {
        return new Listeners(java.util.Objects.requireNonNull(source, "source"), Runnable::run);
    }
}
