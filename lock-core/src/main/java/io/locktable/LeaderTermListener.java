package io.locktable;

/**
 * Hears the terms of one {@link Leadership}, passed to {@link LockTable#lead(String, java.time.Duration,
 * LeaderTermListener)}. Both methods run on the lock table's event thread, in order with its listeners' events (a
 * term's end after its start, before the next start), never on a thread that renews or elects, so a slow one delays
 * other callbacks but never the election. {@link Leadership#isLeader()} is up to date when they run. What they throw
 * is logged and ignored.
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
     * The term that started with {@code lease} is over: {@link Lease#end()} tells why (lost, expired, released by a
     * step-down or a close, or its table closed). By default, nothing.
     *
     * @param lease the term's lease, ended
     */
    default void onTermEnded(Lease lease) {}
}
