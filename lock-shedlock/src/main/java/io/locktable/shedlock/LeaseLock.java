package io.locktable.shedlock;

import io.locktable.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One run's hold of a lock, as ShedLock sees it: a LockTable lease and the monotonic time before which an unlock
 * keeps it ({@code lockAtLeastFor}). Valid until it is unlocked or extended, as {@link SimpleLock} requires; an
 * extension is a new {@code LeaseLock} over the same lease, which goes on renewing itself.
 */
final class LeaseLock implements SimpleLock {

    private final Lease lease;
    private final MinimumHolds holds;
    private final long keepUntilNanos;
    /** The lease bound as {@link Lease#current()} on the job's thread, from the lock to the unlock. */
    private final Lease.Binding binding;

    private final AtomicBoolean valid = new AtomicBoolean(true);

    LeaseLock(Lease lease, MinimumHolds holds, long keepUntilNanos, Lease.Binding binding) {
        this.lease = lease;
        this.holds = holds;
        this.keepUntilNanos = keepUntilNanos;
        this.binding = binding;
    }

    /**
     * Releases the lease, or, before {@code lockAtLeastFor} has passed since the lock was taken (or last extended),
     * keeps it renewed until then and releases it from the provider's timer thread. The release is conditional on
     * this acquisition: once another holder has the lock, nothing is written.
     *
     * @throws IllegalStateException if this lock was unlocked or extended already
     */
    @Override
    public void unlock() {
        invalidate("unlocked");
        binding.close(); // on the job's thread, as ShedLock's executors unlock; elsewhere it does nothing
        holds.releaseAt(lease, keepUntilNanos);
    }

    /**
     * Extends the lock from now: the lease goes on renewing itself (it keeps the duration it was taken with, since
     * it never runs out while held), and an unlock keeps it until {@code lockAtLeastFor} from now. After the call
     * this lock is no longer valid, whatever the answer; use the returned one.
     *
     * @param lockAtMostFor checked as at {@link LockTableLockProvider#lock}: within LockTable's lease range
     * @param lockAtLeastFor the new minimum hold, from now; zero or more, at most {@code lockAtMostFor}
     * @return the extended lock, or empty if the lease has ended (lost to another holder, or run out because its
     *     renewals failed)
     * @throws IllegalArgumentException if a duration is out of range; the lock stays valid
     * @throws IllegalStateException if this lock was unlocked or extended already
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        LockTableLockProvider.checkDurations(lease.name(), lockAtMostFor, lockAtLeastFor);
        long now = System.nanoTime();
        invalidate("extended");
        if (!lease.isHeld()) {
            binding.close();
            lease.release(); // sends nothing for an ended lease; tidies one whose time ran out unnoticed
            return Optional.empty();
        }
        return Optional.of(new LeaseLock(lease, holds, now + lockAtLeastFor.toNanos(), binding));
    }

    Lease lease() {
        return lease;
    }

    private void invalidate(String operation) {
        if (!valid.compareAndSet(true, false)) {
            throw new IllegalStateException("The ShedLock lock '" + lease.name() + "' cannot be " + operation
                    + ": it was unlocked or extended already");
        }
    }

    @Override
    public String toString() {
        return "LeaseLock[" + lease + (valid.get() ? "" : ", invalid") + "]";
    }
}
