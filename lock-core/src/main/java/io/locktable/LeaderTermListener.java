package io.locktable;

/**
 * Hears the terms of one {@link Leadership}: when this process starts to lead and when it stops. Pass it to {@link
 * LockTable#lead(String, java.time.Duration, LeaderTermListener)}.
 *
 * <p>Both methods run on the lock table's event thread, in order with its listeners' events: a term's {@link
 * #onTermEnded(Lease)} always comes after its {@link #onTermStarted(Lease)} and before the next term's start. They
 * never run on a thread that renews or elects, so a slow one delays other callbacks but never the election; {@link
 * Leadership#isLeader()} is already up to date when they run. What they throw is logged and otherwise
 * ignored; it does not end the leadership.
 *
 * <pre>{@code
 * Leadership leadership = locks.lead("order-sweeper", Duration.ofSeconds(30), new LeaderTermListener() {
 *     public void onTermStarted(Lease lease) {
 *         log.info("leading with fencing token {}", lease.fencingToken());
 *     }
 *
 *     public void onTermEnded(Lease lease) {
 *         log.info("no longer leading: {}", lease.end().orElseThrow());
 *     }
 * });
 * }</pre>
 */
@FunctionalInterface
public interface LeaderTermListener {

    /**
     * A term started: this process holds the lock with {@code lease}, which {@link Leadership#lease()} now returns.
     *
     * @param lease the term's lease
     */
    void onTermStarted(Lease lease);

    /**
     * The term that started with {@code lease} is over: the lease was lost, expired, released by {@link
     * Leadership#stepDown(java.time.Duration)} or {@link Leadership#close()}, or its table closed. {@link
     * Lease#end()} tells which. By default, nothing.
     *
     * @param lease the term's lease, ended
     */
    default void onTermEnded(Lease lease) {}
}
