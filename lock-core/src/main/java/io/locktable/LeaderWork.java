package io.locktable;

/**
 * The work of a leader, run by {@link LockTable#runAsLeader(String, java.time.Duration, LeaderWork)} while its
 * lease is held. It runs on a thread of its own for each term, interrupted when the lease is lost: work that honours interruption
 * stops in time. Fence writes that must not happen after the lease ended with {@link Lease#heldCheck()} or {@link
 * Lease#fencingToken()}.
 *
 * <pre>{@code
 * locks.runAsLeader("order-sweeper", Duration.ofSeconds(30), lease -> {
 *     while (true) {
 *         lease.transactWrite(putOrder(order));
 *         Thread.sleep(60_000);
 *     }
 * });
 * }</pre>
 */
@FunctionalInterface
public interface LeaderWork {

    /**
     * Does the leader's work for one term.
     *
     * @param lease the lease of this term, also {@link Lease#current()} on this thread
     * @throws Exception anything the work throws ends the leadership and is rethrown by {@code runAsLeader},
     *     unless the lease was lost or the caller interrupted first
     */
    void lead(Lease lease) throws Exception;
}
