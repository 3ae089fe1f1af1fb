package io.locktable.shedlock;

import io.locktable.Lease;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The locks taken on each thread and not yet unlocked, innermost last, for {@link
 * LockTableLockProvider#currentLease()}. ShedLock's executors lock, run the job and unlock on one thread; a lock
 * unlocked on another thread is skipped here once it is invalid, and dropped at that thread's next change.
 */
final class RunningLocks {

    private static final ThreadLocal<@Nullable ArrayDeque<LeaseLock>> RUNNING = new ThreadLocal<>();

    private RunningLocks() {}

    static void started(LeaseLock lock) {
        ArrayDeque<LeaseLock> running = RUNNING.get();
        if (running == null) {
            running = new ArrayDeque<>(2);
            RUNNING.set(running);
        }
        running.removeIf(stale -> !stale.isValid());
        running.addLast(lock);
    }

    /** An extend replaced {@code old} by {@code next}: {@code next} takes its place, so nesting is kept. */
    static void replaced(LeaseLock old, LeaseLock next) {
        ArrayDeque<LeaseLock> running = RUNNING.get();
        if (running == null || !running.contains(old)) {
            return; // taken on another thread
        }
        ArrayDeque<LeaseLock> copy = new ArrayDeque<>(running.size());
        for (LeaseLock lock : running) {
            copy.addLast(lock == old ? next : lock);
        }
        RUNNING.set(copy);
    }

    static void ended(LeaseLock lock) {
        ArrayDeque<LeaseLock> running = RUNNING.get();
        if (running == null) {
            return;
        }
        running.removeIf(candidate -> candidate == lock || !candidate.isValid());
        if (running.isEmpty()) {
            RUNNING.remove();
        }
    }

    static Optional<Lease> innermost() {
        ArrayDeque<LeaseLock> running = RUNNING.get();
        if (running == null) {
            return Optional.empty();
        }
        for (Iterator<LeaseLock> it = running.descendingIterator(); it.hasNext(); ) {
            LeaseLock lock = it.next();
            if (lock.isValid()) {
                return Optional.of(lock.lease());
            }
        }
        return Optional.empty();
    }
}
