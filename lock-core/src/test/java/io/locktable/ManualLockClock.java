package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * A clock whose time moves only when a test says so: {@link #advance(Duration)} runs, on the test's thread and in
 * due order, every task scheduled up to the new time (renewals and expiry watches included, as {@link
 * #execute(Runnable)} runs blocking work on the calling thread). Nothing happens between two advances, so a test
 * sets up an exact moment, one nanosecond before or after a boundary, and sees what the library decides there. Its
 * origin is the test's choice: two processes' clocks have nothing in common.
 */
final class ManualLockClock implements LockClock {

    private static final Instant WALL_ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private record Scheduled(long dueNanos, long order, FutureTask<Void> task) {}

    private final long origin;
    private final PriorityQueue<Scheduled> scheduled;
    private final Map<Thread, Long> sleepers = new HashMap<>();
    private long now;
    private long order;

    /** A clock that starts at {@code origin}, any value at all, {@link Long#MAX_VALUE} near included. */
    ManualLockClock(long origin) {
        this.origin = origin;
        this.now = origin;
        // by due time as a difference from the origin, so that values that wrap still sort in time order
        this.scheduled = new PriorityQueue<>((a, b) -> {
            int byDue = Long.compare(a.dueNanos() - origin, b.dueNanos() - origin);
            return byDue != 0 ? byDue : Long.compare(a.order(), b.order());
        });
    }

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Instant instant() {
        return WALL_ORIGIN.plusNanos(now - origin);
    }

    @Override
    public synchronized void sleep(long nanos) throws InterruptedException {
        long until = now + nanos;
        sleepers.put(Thread.currentThread(), until);
        try {
            while (until - now > 0) {
                wait();
            }
        } finally {
            sleepers.remove(Thread.currentThread());
        }
    }

    /**
     * Tells whether some thread sleeps on this clock and every sleeping thread waits for a time still to come: a
     * test driving a blocking call on another thread advances only then, so that a sleeper woken by the last
     * advance has gone back to sleep (or returned) first.
     */
    synchronized boolean sleepersWaiting() {
        return !sleepers.isEmpty() && sleepers.values().stream().allMatch(until -> until - now > 0);
    }

    @Override
    public synchronized Future<?> schedule(Runnable task, long delayNanos) {
        FutureTask<Void> future = new FutureTask<>(task, null);
        scheduled.add(new Scheduled(now + Math.max(0, delayNanos), order++, future));
        return future;
    }

    /** Moves time on, running each task that falls due on the way at its due time. */
    void advance(Duration by) {
        long target;
        synchronized (this) {
            target = now + by.toNanos();
        }
        while (true) {
            FutureTask<Void> next;
            synchronized (this) {
                Scheduled first = scheduled.peek();
                if (first == null || first.dueNanos() - target > 0) {
                    if (target - now > 0) { // never back: a task may have jumped past the target
                        now = target;
                    }
                    notifyAll();
                    return;
                }
                scheduled.poll();
                if (first.dueNanos() - now > 0) {
                    now = first.dueNanos();
                }
                notifyAll();
                next = first.task();
            }
            next.run(); // a cancelled task does nothing
            failIfThrown(next);
        }
    }

    /**
     * Moves time on without running what falls due on the way, as a timer thread that is late (a long pause of the
     * process) would: the next {@link #advance} runs those tasks.
     */
    synchronized void jump(Duration by) {
        now += by.toNanos();
        notifyAll();
    }

    private static void failIfThrown(FutureTask<Void> task) {
        if (task.isCancelled()) {
            return;
        }
        try {
            task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new AssertionError("a task scheduled on the clock threw", e.getCause());
        }
    }

    /** How many tasks wait that are not cancelled. */
    synchronized long pending() {
        return scheduled.stream().filter(s -> !s.task().isCancelled()).count();
    }
}
