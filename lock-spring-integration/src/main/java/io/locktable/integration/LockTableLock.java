package io.locktable.integration;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.support.locks.DistributedLock;
import software.amazon.awssdk.core.exception.AbortedException;

/**
 * The lock of one name, as {@link LockTableLockRegistry#obtain} returns it. Two layers, as in Spring Integration's own
 * registries: a local {@link ReentrantLock} queues the threads of this process and counts the holding thread's holds;
 * the first hold takes one LockTable lease, which every further hold of that thread shares, and the last unlock
 * releases it. The lease field is written and read only by the thread that holds the local lock.
 *
 * <p>A lease that ends under its holder (lost to a takeover, or run out) ends the hold in the table at once. The
 * holding thread learns it at its next call: an {@link #unlock()} throws {@link ConcurrentModificationException}, and
 * a new lock call first drops the stale holds (their unlocks then throw the same) and contends afresh, which is what
 * {@code LockRegistryLeaderInitiator} needs to lead again.
 */
final class LockTableLock implements DistributedLock {

    private static final Logger log = LoggerFactory.getLogger(LockTableLock.class);

    /** Holds of one thread that were dropped because their lease had ended: each of its unlocks still tells. */
    private record Dropped(Thread thread, int holds, String end) {}

    private final LockTable locks;
    private final String name;
    private final Duration leaseDuration;
    private final ReentrantLock local = new ReentrantLock();

    /** The lease of the current holder; written by the holder only, with the local lock held. */
    private volatile @Nullable Lease lease;
    /** The lease bound as {@link Lease#current()} on the holder's thread; touched by the holder only. */
    private Lease.@Nullable Binding binding;

    private final AtomicReference<@Nullable Dropped> dropped = new AtomicReference<>();
    private volatile long lastUsedNanos = System.nanoTime();

    LockTableLock(LockTable locks, String name, Duration leaseDuration) {
        this.locks = locks;
        this.name = name;
        this.leaseDuration = leaseDuration;
    }

    /**
     * Takes the lock, waiting as long as it takes and ignoring interrupts, as {@link java.util.concurrent.locks.Lock}
     * requires; an interrupt met while waiting is kept and set again on return. The lease is the registry's.
     *
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed a request after
     *     the client's retries; the lock is not held then
     */
    @Override
    public void lock() {
        lock(leaseDuration);
    }

    /**
     * Takes the lock with a lease of the given duration, waiting as long as it takes and ignoring interrupts.
     *
     * @param ttl the lease's duration, from {@link LockTable#MIN_LEASE_DURATION} to {@link
     *     LockTable#MAX_LEASE_DURATION}; it renews itself every third of it while held. Ignored when the thread holds
     *     the lock already
     * @throws IllegalArgumentException if the duration is out of range
     */
    @Override
    public void lock(Duration ttl) {
        LockTableLockRegistry.checkLease(ttl);
        dropIfStale();
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        boolean interrupted = false;
        boolean held = false;
        try {
            while (!held) {
                try {
                    held = hold(locks.acquire(name, ttl));
                } catch (InterruptedException e) {
                    interrupted = true;
                    Thread.interrupted(); // waits on: the next acquire must not end at once
                }
            }
        } finally {
            if (!held) {
                local.unlock();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Takes the lock, waiting as long as it takes; an interrupt ends the wait.
     *
     * @throws InterruptedException if the thread was interrupted before or while it waited; the lock is not held
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before taking lock '" + name + "'");
        }
        dropIfStale();
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            return;
        }
        boolean held = false;
        try {
            while (!held) {
                held = hold(locks.acquire(name, leaseDuration));
            }
        } finally {
            if (!held) {
                local.unlock();
            }
        }
    }

    /**
     * Tries once to take the lock, without waiting for a live holder: one attempt on the table, which takes the lock
     * over from a holder that this process has watched not renewing for a whole lease. As {@code
     * ReentrantLock.tryLock()}, it takes a free lock whatever the thread's interrupt flag, and keeps the flag.
     *
     * @return true if this thread holds the lock now
     */
    @Override
    public boolean tryLock() {
        dropIfStale();
        if (!local.tryLock()) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        boolean held = false;
        try {
            // not interruptible: the SDK would abort the request on an interrupted thread (see Uninterrupted)
            held = Uninterrupted.call(() -> {
                Optional<Lease> taken = locks.tryAcquire(name, leaseDuration);
                return taken.isPresent() && hold(taken.get());
            });
            return held;
        } finally {
            if (!held) {
                local.unlock();
            }
        }
    }

    /**
     * Tries to take the lock within a wait: see {@link #tryLock(Duration, Duration)}.
     *
     * @param time how long to wait at most
     * @param unit the unit of {@code time}
     * @return true if this thread holds the lock now, false if the wait ran out
     * @throws InterruptedException if the thread was interrupted while it waited
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(Math.max(0, time))), leaseDuration);
    }

    /**
     * Tries to take the lock within a wait, with a lease of the given duration. While another process holds the lock
     * it polls the item (every third of the holder's lease, at most every 10 s) and takes the lock over once the
     * holder has not renewed it for a whole lease, so a wait of a little more than one lease always gets a lock whose
     * holder crashed. The wait counts both the threads of this process ahead in line and the table. The first
     * attempt on the table is made in full whatever the wait, so a wait shorter than a request's round trip still
     * gets a free lock; the call may then return a round trip after the wait.
     *
     * @param waitTime how long to wait at most; zero or less tries once
     * @param ttl the lease's duration, ignored when the thread holds the lock already
     * @return true if this thread holds the lock now, false if the wait ran out
     * @throws InterruptedException if the thread was interrupted before or while it waited, its first attempt
     *     included; the lock is not held then (a lease that attempt won is released), and the flag is cleared
     * @throws IllegalArgumentException if the lease is out of range
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        Objects.requireNonNull(waitTime, "waitTime");
        LockTableLockRegistry.checkLease(ttl);
        long waitNanos = Math.max(0, saturatedNanos(waitTime));
        long deadline = System.nanoTime() + waitNanos;
        dropIfStale();
        if (!local.tryLock(waitNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        boolean held = false;
        try {
            // one whole attempt first, whatever the wait: a request is never cut short by a wait shorter than its
            // round trip (the JDBC registry also tries once at least), so a short heart beat still gets a free lock
            Lease first = firstAttempt(ttl);
            held = first != null && hold(first);
            while (!held) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    held = hold(locks.acquire(name, ttl, Duration.ofNanos(left)));
                } catch (TimeoutException e) {
                    return false;
                }
            }
            return true;
        } finally {
            if (!held) {
                local.unlock();
            }
        }
    }

    /**
     * The first attempt of {@link #tryLock(Duration, Duration)}: an interrupt before or during it is the declared
     * {@link InterruptedException}, never the SDK's abort, and leaves nothing held.
     *
     * @return the lease taken, or null if another holder has the lock
     */
    private @Nullable Lease firstAttempt(Duration ttl) throws InterruptedException {
        Optional<Lease> first;
        try {
            first = locks.tryAcquire(name, ttl);
        } catch (AbortedException e) {
            // the SDK aborted the request on the interrupt: a write it applied unanswered is given back by the table
            if (!Thread.interrupted() && !Uninterrupted.causedByInterrupt(e)) {
                throw e;
            }
            throw interrupted(e);
        }
        if (Thread.interrupted()) { // interrupted as the answer came: the lock is not taken, as for an earlier one
            first.ifPresent(Lease::release);
            throw interrupted(null);
        }
        return first.orElse(null);
    }

    private InterruptedException interrupted(@Nullable Exception cause) {
        InterruptedException interrupted =
                new InterruptedException("interrupted while trying to take lock '" + name + "'");
        interrupted.initCause(cause);
        return interrupted;
    }

    /**
     * Ends one hold of the calling thread; the last one releases the lease, with a write conditional on this
     * acquisition, so a lease that was lost meanwhile sends nothing and never frees the lock of a new holder.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws ConcurrentModificationException if the lease had ended before this unlock (lost to another holder, or
     *     run out because its renewals failed), as Spring Integration's registries report an expired lock: the work
     *     done under the lock may have overlapped another holder's. The lock is no longer held by this thread
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            Dropped stale = takeDropped();
            if (stale != null) {
                throw lost(stale.end());
            }
            throw new IllegalMonitorStateException("The current thread does not hold lock '" + name + "' (table "
                    + locks.tableName() + "): only the thread that took it may unlock it");
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        try {
            unbind();
            if (held != null) {
                boolean wasHeld = held.isHeld();
                // conditional on this acquisition: sends nothing for a lost lease. Sent whatever the interrupt flag
                // (kept): an unlock in a finally block of an interrupted thread must free the lock in the table
                Uninterrupted.run(held::release);
                if (!wasHeld) {
                    throw lost(held.end().map(LeaseEnd::name).orElse("EXPIRED"));
                }
            }
        } finally {
            lastUsedNanos = System.nanoTime();
            local.unlock();
        }
    }

    /**
     * Refused: a {@link Condition} waits for a signal from this process only, while this lock excludes other
     * processes too.
     *
     * @return never
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Lock '" + name + "' of the LockTable lock registry has no conditions:"
                + " a Condition is signalled within one process, and this lock is held across processes; use a"
                + " java.util.concurrent lock inside it for waits within the process");
    }

    /** Whether the calling thread holds the lock (its lease may have ended since). */
    boolean isHeldByCurrentThread() {
        return local.isHeldByCurrentThread();
    }

    /** Whether any thread of this process holds the lock. */
    boolean isLocked() {
        return local.isLocked();
    }

    /** The lease of the current hold, for the holding thread. */
    Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    String name() {
        return name;
    }

    /** Makes a taken lease this thread's hold, or releases it and says no if it ended on the way. */
    private boolean hold(Lease taken) {
        if (!taken.isHeld()) {
            taken.release(); // the answer came after a whole lease: another may hold it by now
            return false;
        }
        lease = taken;
        binding = taken.bindAsCurrent(); // inside the hold, Lease.current() is its lease, so writes can be fenced
        lastUsedNanos = System.nanoTime();
        return true;
    }

    private void unbind() {
        Lease.Binding bound = binding;
        binding = null;
        lease = null;
        if (bound != null) {
            bound.close();
        }
    }

    /**
     * A lock call of the thread that holds the lock whose lease has ended: the holds are void in the table already, so
     * they are dropped here (each of their unlocks will throw) and the call contends like any other.
     */
    private void dropIfStale() {
        if (!local.isHeldByCurrentThread()) {
            return;
        }
        Lease held = lease;
        if (held != null && held.isHeld()) {
            return;
        }
        int holds = local.getHoldCount();
        String end = held == null ? "EXPIRED" : held.end().map(LeaseEnd::name).orElse("EXPIRED");
        unbind();
        if (held != null) {
            held.release(); // sends nothing for a lost lease
        }
        Thread thread = Thread.currentThread();
        dropped.getAndUpdate(previous -> previous != null && previous.thread() == thread
                ? new Dropped(thread, previous.holds() + holds, end)
                : new Dropped(thread, holds, end));
        while (local.isHeldByCurrentThread()) {
            local.unlock();
        }
        log.warn(
                "Lock '{}' was lost under its holder (lease {}); {} hold(s) of thread '{}' dropped, it contends again",
                name,
                end,
                holds,
                thread.getName());
    }

    /** One dropped hold of the calling thread, or null if it has none. */
    private @Nullable Dropped takeDropped() {
        Thread thread = Thread.currentThread();
        Dropped[] taken = new Dropped[1];
        dropped.getAndUpdate(previous -> {
            taken[0] = null;
            if (previous == null || previous.thread() != thread) {
                return previous;
            }
            taken[0] = previous;
            return previous.holds() > 1 ? new Dropped(thread, previous.holds() - 1, previous.end()) : null;
        });
        return taken[0];
    }

    private ConcurrentModificationException lost(String end) {
        return new ConcurrentModificationException("Lock '" + name + "' (table " + locks.tableName()
                + ") was lost before this unlock (lease " + end + "): another holder may have taken it over, so the"
                + " integrity of data protected by this lock may have been compromised. Nothing was written, so a new"
                + " holder keeps the lock; fence such writes with Lease.current().orElseThrow().heldCheck()");
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        Lease current = lease;
        return "LockTableLock[" + name + (current == null ? ", unlocked" : ", " + current) + "]";
    }
}
