package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running election on one lock, as a handle: {@link LockTable#lead(String, Duration)} starts it on a thread of its
 * own, which acquires the lock, holds it while its lease lasts, contends again when it is lost, and retries transient
 * errors, as {@link LockTable#runAsLeader} does. Ask it whether this process leads, get the term's lease to fence
 * writes, wait on {@link #whenStopped()}, {@link #stepDown(Duration)} to hand the lock to another process for a
 * while, and {@link #close()} it to stop: the lease is released so another process takes over at its next poll.
 *
 * <pre>{@code
 * try (Leadership leadership = locks.lead("order-sweeper", Duration.ofSeconds(30))) {
 *     while (running) {
 *         leadership.lease().ifPresent(lease -> sweep(lease)); // fenced with lease.heldCheck()
 *         Thread.sleep(60_000);
 *     }
 * }
 * }</pre>
 *
 * <p>It keeps one thread per lock and runs no user code on it: without work to run there is no second thread per
 * term. A caller that needs to react to terms passes a {@link LeaderTermListener}, which runs on that thread.
 * Thread-safe.
 */
public final class Leadership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Leadership.class);

    private final LockTable table;
    private final String name;
    private final LockClock clock;
    private final LeaderTermListener termListener;
    private final Thread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile boolean stopping; // set before the thread is interrupted: an interrupt before start is lost
    private @Nullable Lease current; // guarded by this
    private long outUntilNanos; // guarded by this; 0 while no step-down keeps this process out
    private boolean steppedDown; // guarded by this; the last term was released by a step-down

    Leadership(
            LockTable table,
            String name,
            Duration leaseDuration,
            LeaderTermListener termListener,
            LockTableListener listener,
            LockClock clock) {
        this.table = table;
        this.name = name;
        this.clock = clock;
        this.termListener = termListener;
        LeaderLoop loop = new LeaderLoop(table, name, leaseDuration, null, new Terms(), listener, clock);
        this.thread = new Thread(() -> run(loop), "locktable-leadership-" + name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run(LeaderLoop loop) {
        if (stopping) {
            stopped.complete(null);
            return;
        }
        try {
            loop.run();
            stopped.complete(null);
        } catch (InterruptedException e) {
            stopped.complete(null); // closed
        } catch (Throwable e) {
            if (table.isClosed()) {
                stopped.complete(null); // the table closed under a running acquire
            } else {
                stopped.completeExceptionally(e);
            }
        }
    }

    /**
     * The name of the lock.
     *
     * @return the lock name
     */
    public String name() {
        return name;
    }

    /**
     * Tells whether this process leads now: a term's lease is held.
     *
     * @return true while leading
     */
    public boolean isLeader() {
        return lease().isPresent();
    }

    /**
     * The lease of the current term, to fence writes with.
     *
     * @return the lease, or empty while this process does not lead
     */
    public Optional<Lease> lease() {
        Lease lease = currentLease();
        return lease != null && lease.isHeld() ? Optional.of(lease) : Optional.empty();
    }

    private synchronized @Nullable Lease currentLease() {
        return current;
    }

    /**
     * Hands the lock to another process: releases the current term's lease, if any, so that another process takes
     * over at its next poll, and keeps this one out of the election for {@code coolDown}; then it contends again.
     * Returns once the lease is released (the release is bounded, at most 5 s). On a process that does not lead it
     * only keeps it out for the cool-down, and a term won by an acquire already on its way is handed back at once.
     * A call during a cool-down lengthens it if its own ends later, and never shortens it.
     *
     * <pre>{@code
     * leadership.stepDown(Duration.ofMinutes(1)); // before a rolling restart of this instance
     * }</pre>
     *
     * @param coolDown how long this process stays out of the election; zero contends again at once
     * @throws IllegalArgumentException if the cool-down is negative
     */
    public void stepDown(Duration coolDown) {
        Objects.requireNonNull(coolDown, "coolDown");
        if (coolDown.isNegative()) {
            throw new IllegalArgumentException(
                    "the cool-down of a step-down from leadership of lock '" + name + "' is negative: " + coolDown);
        }
        Lease lease;
        synchronized (this) {
            long until = clock.nanoTime() + coolDown.toNanos();
            if (outUntilNanos == 0 || until - outUntilNanos > 0) {
                outUntilNanos = until == 0 ? 1 : until;
            }
            steppedDown = true;
            lease = current;
        }
        if (lease != null) {
            log.info(
                    "Leadership of lock '{}': stepping down (fencing token {}); staying out for {}",
                    name,
                    lease.fencingToken(),
                    coolDown);
            lease.release();
        }
    }

    /**
     * Completes when the election has stopped: normally after {@link #close()} (or when the lock table closed),
     * exceptionally when it ended on an error that is not transient, such as a missing table or a foreign item at
     * the lock's key.
     *
     * @return a future that completes when the election thread has ended
     */
    public CompletableFuture<Void> whenStopped() {
        return stopped.copy();
    }

    /**
     * Steps down and stops contending without waiting: the election's thread releases the current term's lease, if
     * any, and ends. For a caller that bounds its own wait, such as an application's shutdown.
     *
     * <pre>{@code
     * leadership.stopAsync().get(2, TimeUnit.SECONDS);
     * }</pre>
     *
     * @return {@link #whenStopped()}: completes once the lease is released and the thread ended
     */
    public CompletableFuture<Void> stopAsync() {
        stopping = true;
        thread.interrupt();
        return whenStopped();
    }

    /**
     * Steps down and stops contending: releases the current term's lease, if any, and waits for the election's
     * thread to end, at most the release's own bound (5 s) plus a second.
     */
    @Override
    public void close() {
        stopAsync();
        boolean interrupted = false;
        long deadline = System.nanoTime() + Timing.RELEASE.plusSeconds(1).toNanos();
        while (thread.isAlive()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                thread.join(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + name + ", " + (isLeader() ? "leading" : "following") + "]";
    }

    private final class Terms implements LeaderLoop.Terms {
        @Override
        public void beforeContending() throws InterruptedException {
            while (true) {
                if (stopping) {
                    throw new InterruptedException("leadership of lock '" + name + "' was stopped");
                }
                long left;
                synchronized (Leadership.this) {
                    steppedDown = false;
                    left = outUntilNanos == 0 ? 0 : outUntilNanos - clock.nanoTime();
                    if (left <= 0) {
                        outUntilNanos = 0;
                        return;
                    }
                }
                clock.sleep(left); // a step-down meanwhile may have lengthened it: looked at again
            }
        }

        @Override
        public boolean started(Lease lease) {
            synchronized (Leadership.this) {
                if (outUntilNanos != 0 && outUntilNanos - clock.nanoTime() > 0) {
                    return false;
                }
                current = lease;
                steppedDown = false;
            }
            try {
                termListener.onTermStarted(lease);
            } catch (RuntimeException | Error e) {
                log.warn("Leadership of lock '{}': the term listener's onTermStarted threw", name, e);
            }
            return true;
        }

        @Override
        public void ended(Lease lease) {
            synchronized (Leadership.this) {
                current = null;
            }
            try {
                termListener.onTermEnded(lease);
            } catch (RuntimeException | Error e) {
                log.warn("Leadership of lock '{}': the term listener's onTermEnded threw", name, e);
            }
        }

        @Override
        public boolean contendAfterRelease() {
            synchronized (Leadership.this) {
                return steppedDown && !table.isClosed();
            }
        }
    }
}
