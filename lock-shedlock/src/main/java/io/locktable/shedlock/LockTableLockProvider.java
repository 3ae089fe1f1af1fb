package io.locktable.shedlock;

import io.locktable.Lease;
import io.locktable.LockTable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} over a {@link LockTable}, for ShedLock 6 and 7:
 * {@code @SchedulerLock} jobs keep their annotations and run under a LockTable lease.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockTable lockTable) {
 *     return new LockTableLockProvider(lockTable);
 * }
 * }</pre>
 *
 * <p>With the Spring Boot starter this bean is auto-configured over the context's {@code LockTable}. What ShedLock's
 * settings become:
 *
 * <ul>
 *   <li><b>{@code lockAtMostFor}</b> is the lease's duration. The lease renews itself every third of it while the
 *       job runs, however long that is, so a job that runs longer than {@code lockAtMostFor} is not started again by
 *       another instance. What is left of its role is how long a crashed instance keeps the job from running: a
 *       contender takes the lock over once it has watched the holder's record unchanged for a whole lease on its own
 *       monotonic clock. No two machines' clocks are compared. It must lie from {@link
 *       LockTable#MIN_LEASE_DURATION} (1 s) to {@link LockTable#MAX_LEASE_DURATION} (1 day).
 *   <li><b>{@code lockAtLeastFor}</b> is the minimum hold, counted on the monotonic clock from the moment the lock
 *       was asked for: a run that ends sooner keeps its lease, renewed, until then, and the provider's own daemon
 *       thread releases it. The job's thread never waits. It does not outlast the application: {@link #close()}
 *       (and closing the {@code LockTable}) releases the leases kept for it.
 *   <li><b>Unlock</b> is conditional on this acquisition: the release of a lease that was lost meanwhile never frees
 *       the lock of the new holder.
 *   <li><b>{@code extend}</b> ({@code LockExtender.extendActiveLock}) returns a new lock while the lease is held, with
 *       the new {@code lockAtLeastFor} counted from now; the lease keeps its duration and goes on renewing itself.
 *       It returns empty once the lease has ended.
 * </ul>
 *
 * <p>Each acquisition has a fencing token; inside the job, {@link Lease#current()} is the run's lease, so
 * that its writes can be fenced ({@code lease.heldCheck()} in a DynamoDB transaction, or {@code
 * lease.fencingToken()} handed to a system that refuses lower tokens).
 *
 * <p>A lock name is a LockTable lock name: the item is {@code LOCK#<name>} in the lock table, not ShedLock's own
 * table. Errors of DynamoDB pass through {@link #lock} as the {@code LockTable} throws them, after the client's
 * retries; ShedLock's executors then skip the run and propagate the error. Thread-safe.
 */
public final class LockTableLockProvider implements ExtensibleLockProvider, AutoCloseable {

    private final LockTable lockTable;
    private final MinimumHolds holds = new MinimumHolds();
    private volatile boolean closed;

    /**
     * A provider over a lock table. The provider does not close the table.
     *
     * @param lockTable the lock table whose leases the jobs hold
     */
    public LockTableLockProvider(LockTable lockTable) {
        this.lockTable = Objects.requireNonNull(lockTable, "lockTable");
    }

    /**
     * Tries once to take the lock, without waiting: a lease of {@code lockAtMostFor} that renews itself until the lock
     * is unlocked. It takes the lock over from a holder that stopped renewing it once this table has watched that
     * holder for a whole lease.
     *
     * @param lockConfiguration the lock's name, {@code lockAtMostFor} (the lease) and {@code lockAtLeastFor} (the
     *     minimum hold)
     * @return the lock, or empty if another holder has it (this provider's own earlier run included: locks are not
     *     reentrant across runs)
     * @throws IllegalArgumentException if {@code lockAtMostFor} is outside LockTable's lease range, with the lock's
     *     name
     * @throws IllegalStateException if this provider or its lock table was closed
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed the request, after
     *     the client's retries
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Objects.requireNonNull(lockConfiguration, "lockConfiguration");
        String name = lockConfiguration.getName();
        Duration lease = lockConfiguration.getLockAtMostFor();
        checkDurations(name, lease, lockConfiguration.getLockAtLeastFor());
        if (closed) {
            throw new IllegalStateException(
                    "The LockTable ShedLock provider was closed; lock '" + name + "' not taken");
        }
        long askedAt = System.nanoTime();
        Optional<Lease> acquired = lockTable.tryAcquire(name, lease);
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        Lease held = acquired.get();
        if (!held.isHeld()) {
            held.release(); // the answer came after a whole lease: another may hold it by now
            return Optional.empty();
        }
        // bound on the job's thread until its unlock: inside the job, Lease.current() is the run's lease
        return Optional.of(new LeaseLock(
                held, holds, askedAt + lockConfiguration.getLockAtLeastFor().toNanos(), held.bindAsCurrent()));
    }

    /**
     * The lock table whose leases this provider takes.
     *
     * @return the lock table
     */
    public LockTable lockTable() {
        return lockTable;
    }

    /**
     * Releases the leases kept for their {@code lockAtLeastFor} now, stops the provider's thread, and refuses later
     * locks. Runs that are still going keep their leases until they unlock (or the lock table is closed).
     * Idempotent; it does not close the lock table.
     */
    @Override
    public void close() {
        closed = true;
        holds.close();
    }

    @Override
    public String toString() {
        return "LockTableLockProvider[" + lockTable + "]";
    }

    /** How many leases wait for the end of their {@code lockAtLeastFor}; for tests. */
    int keptForMinimumHold() {
        return holds.keptCount();
    }

    /**
     * The one check of ShedLock's durations, for {@link #lock} and {@link LeaseLock#extend}: the lease must lie in
     * LockTable's range (the one rule, {@link LockTable#isLeaseDuration}), the minimum hold from zero to it.
     */
    static void checkDurations(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        Objects.requireNonNull(lockAtMostFor, "lockAtMostFor");
        Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor");
        if (!LockTable.isLeaseDuration(lockAtMostFor)) {
            throw new IllegalArgumentException("lockAtMostFor of lock '" + name + "' is " + lockAtMostFor
                    + ", outside LockTable's lease range " + LockTable.MIN_LEASE_DURATION + " to "
                    + LockTable.MAX_LEASE_DURATION
                    + ": it is the lease, which renews itself while the job runs, so it only says how long a crashed"
                    + " instance keeps the job from running");
        }
        if (lockAtLeastFor.isNegative() || lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor of lock '" + name + "' is " + lockAtLeastFor
                    + ": it must be from zero to lockAtMostFor (" + lockAtMostFor + ")");
        }
    }
}
