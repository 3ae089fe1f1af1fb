package io.locktable;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A running election on one lock, as a handle: {@link LockTable#lead(String, Duration)} starts it on a thread of its
 * own, which acquires the lock, holds it while its lease lasts, contends again when it is lost, and retries transient
 * errors, as {@link LockTable#runAsLeader} does. Ask it whether this process leads, get the term's lease to fence
 * writes, wait on {@link #whenStopped()}, and {@link #close()} it to step down: the lease is released so another
 * process takes over at its next poll.
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
 * term, and a caller that needs to react to a term uses {@link Lease#whenEnded()} of {@link #lease()}. Thread-safe.
 */
public final class Leadership implements AutoCloseable {

    private final LockTable table;
    private final String name;
    private final Thread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile @Nullable Lease current;

    Leadership(LockTable table, String name, Duration leaseDuration, LockTableListener listener, LockClock clock) {
        this.table = table;
        this.name = name;
        LeaderLoop loop = new LeaderLoop(table, name, leaseDuration, null, new Terms(), listener, clock);
        this.thread = new Thread(() -> run(loop), "locktable-leadership-" + name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run(LeaderLoop loop) {
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
        Lease lease = current;
        return lease != null && lease.isHeld();
    }

    /**
     * The lease of the current term, to fence writes with.
     *
     * @return the lease, or empty while this process does not lead
     */
    public Optional<Lease> lease() {
        Lease lease = current;
        return lease != null && lease.isHeld() ? Optional.of(lease) : Optional.empty();
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
     * Steps down and stops contending: releases the current term's lease, if any, and waits for the election's
     * thread to end, at most the release's own bound (5 s) plus a second.
     */
    @Override
    public void close() {
        thread.interrupt();
        boolean interrupted = false;
        long deadline =
                System.nanoTime() + RequestTimeouts.RELEASE.plusSeconds(1).toNanos();
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
        public void started(Lease lease) {
            current = lease;
        }

        @Override
        public void ended(Lease lease) {
            current = null;
        }
    }
}
