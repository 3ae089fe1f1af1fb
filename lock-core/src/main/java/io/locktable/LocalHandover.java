package io.locktable;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Hands a lock released by this table straight to a waiting acquire of the same table: the longest waiter wakes at
 * once and writes (one request), instead of reading at its next poll, up to a third of a lease later. Waiters of other
 * processes still learn it at their next poll.
 */
final class LocalHandover {

    /** One waiting acquire. */
    static final class Waiter {
        private final String name;
        private boolean signalled; // guarded by the handover

        private Waiter(String name) {
            this.name = name;
        }
    }

    private final Map<String, Deque<Waiter>> waiting = new HashMap<>(); // guarded by this

    synchronized Waiter enlist(String name) {
        Waiter waiter = new Waiter(name);
        waiting.computeIfAbsent(name, key -> new ArrayDeque<>()).add(waiter);
        return waiter;
    }

    synchronized void leave(Waiter waiter) {
        Deque<Waiter> queue = waiting.get(waiter.name);
        if (queue != null) {
            queue.remove(waiter);
            if (queue.isEmpty()) {
                waiting.remove(waiter.name);
            }
        }
    }

    /** This table released the lock: the longest waiter of it wakes. */
    synchronized void released(String name) {
        Deque<Waiter> queue = waiting.get(name);
        if (queue == null) {
            return;
        }
        for (Waiter waiter : queue) {
            if (!waiter.signalled) {
                waiter.signalled = true;
                notifyAll();
                return;
            }
        }
    }

    /**
     * Sleeps up to {@code nanos} (real time: only for the system clock), or less if the lock is handed over.
     *
     * @return true if it was handed over: the lock is free, write at once
     */
    synchronized boolean await(Waiter waiter, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (!waiter.signalled) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        waiter.signalled = false;
        // to the back of the line: if another process took the lock, the next release wakes someone else first
        Deque<Waiter> queue = waiting.get(waiter.name);
        if (queue != null && queue.remove(waiter)) {
            queue.add(waiter);
        }
        return true;
    }
}
