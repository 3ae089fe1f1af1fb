package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A clock whose time moves only when a test says so: with {@link LockTable#inMemory} a unit test gets real leases,
 * renewals, expiries and takeovers in virtual time. {@link #advance(Duration)} runs, on the calling thread and in due
 * order, every task that falls due up to the new time (this clock runs the table's blocking work on the calling
 * thread too); nothing happens between two advances. Give each simulated process a clock of its own: one not advanced
 * is frozen (a crash, a long pause), and a contender whose clock moves on takes over after a whole lease.
 *
 * <pre>{@code
 * ManualLockClock crashedClock = new ManualLockClock();
 * ManualLockClock survivorClock = new ManualLockClock();
 * LockTable crashed = LockTable.inMemory("orders-test").clock(crashedClock).build();
 * LockTable survivor = LockTable.inMemory("orders-test").clock(survivorClock).build();
 * crashed.tryAcquire("sweeper", Duration.ofSeconds(30)).orElseThrow();
 * assertThat(survivor.tryAcquire("sweeper", Duration.ofSeconds(30))).isEmpty(); // it starts watching the holder
 * survivorClock.advance(Duration.ofSeconds(31)); // the holder's clock stands still: it renews nothing
 * Lease taken = survivor.tryAcquire("sweeper", Duration.ofSeconds(30)).orElseThrow();
 * }</pre>
 *
 * <p>Thread-safe: a blocking call on another thread sleeps on this clock until an advance reaches its time ({@link
 * #sleepersWaiting()}). A table does not close it. It calls listeners on the thread that caused the event, one at a
 * time and in order, and never inside a task of this clock: an event a task raises runs when the task returns, so a
 * listener that blocks or advances the clock holds up no other lease's expiry, as on a table's own event thread.
 */
public final class ManualLockClock implements LockClock {

    private static final Instant WALL_ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private record Scheduled(long dueNanos, long order, FutureTask<Void> task) {}

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition moved = lock.newCondition();
    private final long origin;
    private final PriorityQueue<Scheduled> scheduled;
    private final Map<Thread, Long> sleepers = new HashMap<>(); // guarded by lock
    private long now; // guarded by lock
    private long order; // guarded by lock

    /** A clock that starts at zero nanoseconds, and at 2026-01-01T00:00:00Z on the wall clock. */
    public ManualLockClock() {
        this(0);
    }

    /**
     * A clock that starts at {@code origin} nanoseconds (any value, near {@link Long#MAX_VALUE} included, to show
     * that a wrapping {@code System.nanoTime()} breaks nothing), and at 2026-01-01T00:00:00Z on the wall clock.
     *
     * @param origin the first value of {@link #nanoTime()}
     */
    public ManualLockClock(long origin) {
        this.origin = origin;
        this.now = origin;
        // by due time as a difference from the origin, so that values that wrap still sort in time order
        this.scheduled = new PriorityQueue<>((a, b) -> {
            int byDue = Long.compare(a.dueNanos() - origin, b.dueNanos() - origin);
            return byDue != 0 ? byDue : Long.compare(a.order(), b.order());
        });
    }

    @Override
    public long nanoTime() {
        lock.lock();
        try {
            return now;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Instant instant() {
        lock.lock();
        try {
            return WALL_ORIGIN.plusNanos(now - origin);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks the calling thread until an advance (or a jump) of this clock reaches the time {@code nanos} from now.
     *
     * @param nanos how long, in nanoseconds of this clock
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    @Override
    public void sleep(long nanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long until = now + nanos;
            sleepers.put(Thread.currentThread(), until);
            try {
                while (until - now > 0) {
                    moved.await();
                }
            } finally {
                sleepers.remove(Thread.currentThread());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether some thread sleeps on this clock and every sleeper waits for a time still to come: advance only then,
     * so a sleeper woken by the last advance has gone back to sleep first.
     *
     * <pre>{@code
     * Future<Lease> waiting = executor.submit(() -> survivor.acquire("sweeper", Duration.ofSeconds(30)));
     * await().until(survivorClock::sleepersWaiting);
     * survivorClock.advance(Duration.ofSeconds(10));
     * }</pre>
     *
     * @return true if at least one thread sleeps and none is due
     */
    public boolean sleepersWaiting() {
        lock.lock();
        try {
            return !sleepers.isEmpty() && sleepers.values().stream().allMatch(until -> until - now > 0);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Schedules a task to run when an advance reaches its time, on the thread that advances.
     *
     * @param task the task
     * @param delayNanos the delay in nanoseconds of this clock
     * @return a future that cancels the task if it has not run
     */
    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        Objects.requireNonNull(task, "task");
        FutureTask<Void> future = new FutureTask<>(task, null);
        lock.lock();
        try {
            // a task due past the clock's range (292 years from its origin) is due at its end: its due time as a
            // difference from the origin must not wrap, or it would sort first and hold back every task behind it
            long delay = Math.min(Math.max(0, delayNanos), Long.MAX_VALUE - (now - origin));
            scheduled.add(new Scheduled(now + delay, order++, future));
        } finally {
            lock.unlock();
        }
        return future;
    }

    /**
     * Moves time on, running each task that falls due on the way at its due time, on the calling thread, and waking
     * the threads that sleep on this clock as their time comes.
     *
     * @param by how far, zero or more
     * @throws IllegalArgumentException if {@code by} is negative
     * @throws AssertionError if a scheduled task threw: a library task never should
     */
    public void advance(Duration by) {
        long target;
        lock.lock();
        try {
            target = now + checkForward(by);
        } finally {
            lock.unlock();
        }
        while (true) {
            FutureTask<Void> next;
            lock.lock();
            try {
                Scheduled first = scheduled.peek();
                if (first == null || first.dueNanos() - target > 0) {
                    if (target - now > 0) { // never back: a task may have jumped past the target
                        now = target;
                    }
                    moved.signalAll();
                    return;
                }
                scheduled.poll();
                if (first.dueNanos() - now > 0) {
                    now = first.dueNanos();
                }
                moved.signalAll();
                next = first.task();
            } finally {
                lock.unlock();
            }
            next.run(); // a cancelled task does nothing
            failIfThrown(next);
        }
    }

    /**
     * Moves time on without running what falls due on the way, as a timer thread of a process that was paused (a long
     * garbage collection, a frozen virtual machine) would see it: the next {@link #advance} runs those tasks, late.
     *
     * @param by how far, zero or more
     * @throws IllegalArgumentException if {@code by} is negative
     */
    public void jump(Duration by) {
        lock.lock();
        try {
            now += checkForward(by);
            moved.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** How many tasks wait that are not cancelled, for the library's own tests. */
    long pending() {
        lock.lock();
        try {
            return scheduled.stream().filter(s -> !s.task().isCancelled()).count();
        } finally {
            lock.unlock();
        }
    }

    private static long checkForward(Duration by) {
        Objects.requireNonNull(by, "by");
        if (by.isNegative()) {
            throw new IllegalArgumentException("a manual clock moves forward only, not by " + by);
        }
        try {
            return by.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException(
                    "a manual clock counts nanoseconds in a long: it moves at most about 292 years at once, not by "
                            + by);
        }
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
}
