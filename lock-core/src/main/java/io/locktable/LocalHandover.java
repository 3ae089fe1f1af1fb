package io.locktable;

import java.util.Deque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands a lock released by this table straight to a waiting acquire of the same table: the longest waiter wakes at
 * once and writes (one request), instead of reading at its next poll, up to a third of a lease later. Waiters of other
 * processes still learn it at their next poll.
 *
 * <p>Each waiter parks on a semaphore of its own, and the waiters of one name are a queue of their own: no monitor
 * is held while anyone waits (a virtual thread never pins its carrier here), and a release wakes one waiter of its
 * name only. {@link #closeAll()} wakes every waiter, so that a closing table leaves none parked.
 */
final class LocalHandover {

    /** One waiting acquire. */
    static final class Waiter {
        private final String name;
        private final Semaphore wake = new Semaphore(0);
        private final AtomicBoolean signalled = new AtomicBoolean();

        private Waiter(String name) {
            this.name = name;
        }
    }

    private final ConcurrentMap<String, Deque<Waiter>> waiting = new ConcurrentHashMap<>();
    private volatile boolean closed;

    Waiter enlist(String name) {
        Waiter waiter = new Waiter(name);
        waiting.compute(name, (key, queue) -> {
            Deque<Waiter> line = queue == null ? new ConcurrentLinkedDeque<>() : queue;
            line.add(waiter);
            return line;
        });
        if (closed) {
            waiter.wake.release();
        }
        return waiter;
    }

    void leave(Waiter waiter) {
        waiting.computeIfPresent(waiter.name, (key, queue) -> {
            queue.remove(waiter);
            return queue.isEmpty() ? null : queue;
        });
    }

    /** This table released the lock: the longest waiter of it that is not woken yet wakes. */
    void released(String name) {
        Deque<Waiter> queue = waiting.get(name);
        if (queue == null) {
            return;
        }
        for (Waiter waiter : queue) {
            if (waiter.signalled.compareAndSet(false, true)) {
                waiter.wake.release();
                return;
            }
        }
    }

    /** The table closes: every waiter wakes, and finds the table closed. */
    void closeAll() {
        closed = true;
        for (Deque<Waiter> queue : waiting.values()) {
            for (Waiter waiter : queue) {
                waiter.wake.release();
            }
        }
    }

    /**
     * Sleeps up to {@code nanos} (real time: only for the system clock), or less if the lock is handed over or the
     * table closes; the caller looks at which.
     *
     * @return true if it was woken: the lock is free (write at once), or the table closed
     */
    boolean await(Waiter waiter, long nanos) throws InterruptedException {
        if (!waiter.wake.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        waiter.signalled.set(false);
        // to the back of the line: if another process took the lock, the next release wakes someone else first
        waiting.computeIfPresent(waiter.name, (key, queue) -> {
            if (queue.remove(waiter)) {
                queue.add(waiter);
            }
            return queue;
        });
        return true;
    }
}
