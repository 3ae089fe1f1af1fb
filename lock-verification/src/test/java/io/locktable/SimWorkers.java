package io.locktable;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * A simulated process's clock as its table sees it: its {@link ManualLockClock} for time and the timer, and workers
 * that can be busy. A table over a clock of the caller's own runs the tasks that may block on a request (renewals,
 * releases, the polls of waiting acquires, elections' attempts) through {@link LockClock#execute}; the manual clock
 * runs them at once, here they queue while the workers are busy, as on a table whose workers are all taken, and run in
 * their order when the workers free up. The timer does not wait for them: a lease ends on time whatever its renewal
 * is doing. A closing table's releases run at once: {@code close()} waits for them in real time (a few seconds), which
 * the simulation's one thread, waiting there, could not give the queue.
 */
final class SimWorkers implements LockClock {

    private final ManualLockClock clock;
    private final BooleanSupplier closing;
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    /** Until when the workers are busy, in the simulation's time; 0 when they are not. */
    private long busyUntil;
    /**
     * How many queued tasks are running now: one whose listener blocks (the world moving on inside it) keeps a worker,
     * as its event runs on the thread that caused it under a clock of the caller's own.
     */
    private int running;

    SimWorkers(ManualLockClock clock, BooleanSupplier closing) {
        this.clock = clock;
        this.closing = closing;
    }

    /** Takes the workers until {@code until}, in the simulation's time. */
    void busyUntil(long until) {
        busyUntil = until;
    }

    boolean busy() {
        return busyUntil != 0 || running > 0;
    }

    /** Whether the busy spell is over at {@code now} with tasks waiting for the workers. */
    boolean dueToFree(long now) {
        return busyUntil != 0 && now - busyUntil >= 0 && !queued.isEmpty();
    }

    /**
     * Frees the workers once the simulation's time has reached the end of their busy spell, and runs what queued
     * meanwhile, in order; a task that queues another runs it too. A task that blocks (a listener on its path, the
     * world moving on inside it) leaves the rest to the next call, as another worker would take them.
     *
     * @return whether they were freed, or ran what had queued, now: what waited on them goes on from here
     */
    boolean freeAt(long now) {
        if (busyUntil != 0 && now - busyUntil < 0) {
            return false;
        }
        boolean freed = busyUntil != 0;
        busyUntil = 0;
        Runnable next;
        while (busyUntil == 0 && (next = queued.poll()) != null) {
            freed = true;
            running++;
            try {
                next.run();
            } finally {
                running--;
            }
        }
        return freed;
    }

    /** The table closed: what still waited for a worker is dropped, as its scheduler's close drops its queue. */
    void closed() {
        queued.clear();
        busyUntil = 0;
    }

    @Override
    public void execute(Runnable task) {
        if (busyUntil != 0 && !closing.getAsBoolean()) {
            queued.add(task);
        } else {
            task.run();
        }
    }

    @Override
    public long nanoTime() {
        return clock.nanoTime();
    }

    @Override
    public Instant instant() {
        return clock.instant();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        clock.sleep(nanos);
    }

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        return clock.schedule(task, delayNanos);
    }
}
