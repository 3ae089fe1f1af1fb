package io.locktable.integration;

import io.locktable.Lease;
import io.locktable.LockTable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} over a {@link LockTable}:
 * each key is a LockTable lock name, and each lock is held through a lease that renews itself while held.
 *
 * <pre>{@code
 * @Bean
 * LockTableLockRegistry lockRegistry(LockTable lockTable) {
 *     return new LockTableLockRegistry(lockTable, Duration.ofSeconds(30));
 * }
 *
 * Lock lock = registry.obtain("orders");
 * if (lock.tryLock(5, TimeUnit.SECONDS)) {
 *     try {
 *         Lease lease = Lease.current().orElseThrow(); // to fence writes
 *         ...
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 *
 * <p>With the Spring Boot starter and Spring Integration on the class path, this bean is auto-configured (with {@code
 * locktable.lease-duration}) unless the context defines a {@code LockRegistry} of its own, and {@code
 * LockRegistryLeaderInitiator} over it elects one leader across instances.
 *
 * <p><b>The locks.</b> {@link #obtain} returns the same {@link java.util.concurrent.locks.Lock} for the same key, with
 * the semantics of Spring Integration's own registries:
 *
 * <ul>
 *   <li>{@code tryLock()} tries once; {@code tryLock(time, unit)} waits up to that time, counting both the threads of
 *       this process ahead in line and the table. Both take the lock over from a holder that stopped renewing it,
 *       once this process has watched its record unchanged for a whole lease on its monotonic clock (no two
 *       machines' clocks are compared): a wait of a little more than one lease always gets a lock whose holder
 *       crashed.
 *   <li>{@code lock()} waits as long as it takes and ignores interrupts (setting the thread's interrupt flag again
 *       when it returns); {@code lockInterruptibly()} ends its wait when interrupted.
 *   <li>Reentrant for the holding thread: its holds share one lease; further holds send nothing; the last {@code
 *       unlock()} releases the lease. LockTable itself is not reentrant: another {@code LockTableLockRegistry} over the
 *       same table, or another instance, is a contender like any other.
 *   <li>{@code unlock()} by a thread that does not hold the lock throws {@link IllegalMonitorStateException}.
 *   <li>{@code newCondition()} throws {@link UnsupportedOperationException}.
 *   <li>While held, the lease is bound as {@link Lease#current()} on the holding thread (from the lock call to the last
 *       unlock), so the work fences its writes with {@code heldCheck()} or {@code fencingToken()}.
 * </ul>
 *
 * <p><b>A lease lost while held.</b> A lease ends under its holder when another process takes the lock over (the
 * holder was paused longer than a lease) or when its renewals fail for a whole lease. The table no longer counts the
 * hold then. The next {@code unlock()} sends nothing, so it never frees the lock of a new holder, and throws {@link
 * java.util.ConcurrentModificationException}, as Spring Integration's JDBC and Redis registries do on the
 * unlock of an expired lock: the work may have overlapped another holder's. A lock call of the holding thread after
 * its lease ended drops the void holds first (each of their unlocks then throws the same) and contends afresh; that
 * is how {@code LockRegistryLeaderInitiator}, which calls {@code tryLock} again on each heart beat, steps down and
 * leads again later.
 *
 * <p><b>Errors.</b> Errors of DynamoDB pass through the lock calls as the {@code LockTable} throws them, after the
 * client's retries; the lock is not held then. Thread-safe.
 */
public final class LockTableLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    /** The lease of a lock taken without a duration of its own, when the registry is made without one: 30 s. */
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);

    private final LockTable lockTable;
    private final Duration leaseDuration;
    private final ConcurrentMap<String, LockTableLock> locks = new ConcurrentHashMap<>();

    /**
     * A registry over a lock table whose locks have leases of {@link #DEFAULT_LEASE_DURATION}. The registry does not
     * close the table.
     *
     * @param lockTable the lock table
     */
    public LockTableLockRegistry(LockTable lockTable) {
        this(lockTable, DEFAULT_LEASE_DURATION);
    }

    /**
     * A registry over a lock table. The registry does not close the table.
     *
     * @param lockTable the lock table
     * @param leaseDuration the lease of each lock (unless a {@link DistributedLock} call gives one), from {@link
     *     LockTable#MIN_LEASE_DURATION} to {@link LockTable#MAX_LEASE_DURATION}. It renews itself every third of it
     *     while held, however long; what it bounds is how long a crashed holder keeps the lock from the others
     * @throws IllegalArgumentException if the lease is out of range
     */
    public LockTableLockRegistry(LockTable lockTable, Duration leaseDuration) {
        this.lockTable = Objects.requireNonNull(lockTable, "lockTable");
        this.leaseDuration = checkLease(leaseDuration);
    }

    /**
     * The lock of a name: the same object for the same name until {@link #expireUnusedOlderThan} removes it.
     *
     * @param lockKey the lock's name, a non-empty {@link String}; the item is {@code LOCK#<name>} in the lock table
     * @return the lock, a {@link java.util.concurrent.locks.Lock} with the semantics above
     * @throws IllegalArgumentException if the key is not a string or is empty
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        String name = checkKey(lockKey);
        return locks.computeIfAbsent(name, key -> new LockTableLock(lockTable, key, leaseDuration));
    }

    /**
     * Forgets the locks that no thread of this process holds and that were last taken or unlocked more than {@code
     * age} milliseconds ago, so a registry of many names keeps few objects. A later {@link #obtain} makes a new one.
     * It sends no request.
     *
     * @param age the age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, age));
        locks.values().removeIf(lock -> !lock.isLocked() && now - lock.lastUsedNanos() > ageNanos);
    }

    /**
     * Checks that the calling thread holds the lock and that its lease is still held. A lease renews itself every
     * third of its duration, so there is nothing to send: this is for code written against Spring Integration's
     * renewable registries, where a failed renewal tells the lock was lost.
     *
     * @param lockKey the lock's name
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws IllegalStateException if the lease has ended (lost or run out), as Spring Integration's registries
     *     report a renewal that failed
     */
    @Override
    public void renewLock(Object lockKey) {
        String name = checkKey(lockKey);
        LockTableLock lock = locks.get(name);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("The current thread does not hold lock '" + name + "' (table "
                    + lockTable.tableName() + "): only its holder may renew it");
        }
        Optional<Lease> lease = lock.lease();
        if (lease.isEmpty() || !lease.get().isHeld()) {
            throw new IllegalStateException("Could not renew lock '" + name + "' (table " + lockTable.tableName()
                    + "): its lease has ended ("
                    + lease.flatMap(Lease::end).map(Enum::name).orElse("EXPIRED") + ")");
        }
    }

    /**
     * Same as {@link #renewLock(Object)}: a lease keeps the duration it was taken with, since it renews itself and
     * never runs out while its holder lives; {@code ttl} is only checked.
     *
     * @param lockKey the lock's name
     * @param ttl a lease duration, from {@link LockTable#MIN_LEASE_DURATION} to {@link LockTable#MAX_LEASE_DURATION}
     * @throws IllegalArgumentException if {@code ttl} is out of range
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws IllegalStateException if the lease has ended
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        checkLease(ttl);
        renewLock(lockKey);
    }

    /**
     * The lock table whose leases this registry takes.
     *
     * @return the lock table
     */
    public LockTable lockTable() {
        return lockTable;
    }

    /**
     * The lease of a lock taken without a duration of its own.
     *
     * @return the lease duration
     */
    public Duration leaseDuration() {
        return leaseDuration;
    }

    @Override
    public String toString() {
        return "LockTableLockRegistry[" + lockTable.tableName() + ", leaseDuration=" + leaseDuration + "]";
    }

    /** The one check of a lease given to this registry or its locks: LockTable's range. */
    static Duration checkLease(Duration leaseDuration) {
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        if (!LockTable.isLeaseDuration(leaseDuration)) {
            throw new IllegalArgumentException("The lease of the LockTable lock registry is " + leaseDuration
                    + ", outside LockTable's lease range " + LockTable.MIN_LEASE_DURATION + " to "
                    + LockTable.MAX_LEASE_DURATION + ": it renews itself while held, so it only says how long a"
                    + " crashed holder keeps the lock");
        }
        return leaseDuration;
    }

    private static String checkKey(Object lockKey) {
        if (!(lockKey instanceof String name) || name.isEmpty()) {
            throw new IllegalArgumentException(
                    "The LockTable lock registry takes lock names, non-empty strings, as keys; got " + lockKey);
        }
        return name;
    }
}
