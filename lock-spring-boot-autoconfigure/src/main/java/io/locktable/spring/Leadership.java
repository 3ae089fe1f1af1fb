package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LockTable;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One name of a {@link LeaderRunner}: an election thread that runs {@link LockTable#runAsLeader} over and over,
 * whose work only marks the term and parks; the calls in flight; and what the status reports.
 */
final class Leadership {

    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);

    /** A failure of the leadership, as the status reports it. */
    private record Failure(String error, Instant at) {}

    private final String name;
    private final Duration leaseDuration;
    private final LockTable locks;
    private final EventThread events;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final ThreadLocal<int[]> ownCalls = ThreadLocal.withInitial(() -> new int[1]);
    private final Object idle = new Object();
    private final AtomicLong terms = new AtomicLong();
    private final LongAdder skipped = new LongAdder();

    private volatile boolean accepting;
    private volatile boolean stopRequested;
    private volatile boolean releasing; // a term ended and runAsLeader is releasing its lease: not to be interrupted
    private volatile @Nullable Lease current;
    private volatile LeadershipState state = LeadershipState.STOPPED;
    private volatile long outUntilNanos; // 0: not yielded
    private volatile @Nullable Failure lastFailure;
    private Thread election; // guarded by this

    Leadership(String name, Duration leaseDuration, LockTable locks, EventThread events) {
        this.name = name;
        this.leaseDuration = leaseDuration;
        this.locks = locks;
        this.events = events;
    }

    String name() {
        return name;
    }

    Duration leaseDuration() {
        return leaseDuration;
    }

    synchronized void start() {
        if (election != null && election.isAlive()) {
            return;
        }
        stopRequested = false;
        accepting = true;
        state = LeadershipState.FOLLOWING;
        election = new Thread(this::elect, "locktable-election-" + name);
        election.setDaemon(true);
        election.start();
    }

    boolean isLeader() {
        Lease lease = current;
        return lease != null && lease.isHeld();
    }

    Optional<Lease> lease() {
        Lease lease = current;
        return lease != null && lease.isHeld() ? Optional.of(lease) : Optional.empty();
    }

    LeadershipStatus status() {
        LeadershipState reported = state;
        if (reported == LeadershipState.LEADING && !isLeader()) {
            reported = LeadershipState.FOLLOWING; // the lease ended; the term is being wound up
        }
        Failure failure = lastFailure;
        return new LeadershipStatus(
                name,
                reported,
                terms.get(),
                Optional.ofNullable(failure).map(Failure::error),
                Optional.ofNullable(failure).map(Failure::at));
    }

    long skipped() {
        return skipped.sum();
    }

    /** Admits a call if this instance leads and is not stepping down; the caller must {@link #exit()} after it. */
    Optional<Lease> enter() {
        inFlight.incrementAndGet();
        Lease lease = current;
        if (!accepting || yielded() || lease == null || !lease.isHeld()) {
            leave();
            skipped.increment();
            return Optional.empty();
        }
        ownCalls.get()[0]++;
        return Optional.of(lease);
    }

    void exit() {
        int[] own = ownCalls.get();
        if (--own[0] <= 0) {
            ownCalls.remove();
        }
        leave();
    }

    private void leave() {
        inFlight.decrementAndGet();
        synchronized (idle) {
            idle.notifyAll();
        }
    }

    void recordFailure(Throwable error) {
        lastFailure = new Failure(error.toString(), Instant.now());
    }

    boolean holds(Lease lease) {
        return current == lease;
    }

    /**
     * Steps down: no new call is admitted, calls in flight on other threads finish (at most one lease), the lease
     * is released, and this instance stays out of the election for {@code coolDown}. Returns once released.
     */
    void yieldFor(Duration coolDown) {
        finishYield(beginYield(coolDown));
    }

    /**
     * First step of a step-down, at once: no new call is admitted, and this instance stays out of the election for
     * {@code coolDown}. Returns the lease to release, or null when it does not lead.
     */
    Lease beginYield(Duration coolDown) {
        long until = System.nanoTime() + coolDown.toNanos();
        outUntilNanos = until == 0 ? 1 : until;
        return current;
    }

    /**
     * Second step of a step-down, which may block: waits for the calls in flight on other threads (at most one
     * lease), then ends the term and waits until its lease is released (at most one lease).
     */
    void finishYield(Lease lease) {
        if (lease != null) {
            awaitCalls(System.nanoTime() + leaseDuration.toNanos());
        }
        interruptElection();
        if (lease != null) {
            try {
                lease.whenEnded().get(leaseDuration.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                log.warn("Leadership '{}': the lease was not released within {} of yield()", name, leaseDuration);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                // whenEnded never completes exceptionally
            }
        }
        log.info(
                "Leadership '{}': stepped down, staying out of the election for {}",
                name,
                Duration.ofNanos(Math.max(0, outUntilNanos - System.nanoTime())));
    }

    /** First step of a stop: no call is admitted any more. */
    void closeGate() {
        accepting = false;
    }

    /** Waits until the calls in flight on other threads have finished, or the deadline passed. */
    boolean awaitCalls(long deadlineNanos) {
        int own = ownCalls.get()[0];
        if (own == 0) {
            ownCalls.remove();
        }
        synchronized (idle) {
            while (inFlight.get() > own) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    log.warn(
                            "Leadership '{}': {} @LeaderOnly calls still running; stepping down anyway",
                            name,
                            inFlight.get() - own);
                    return false;
                }
                try {
                    idle.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    /** Second step of a stop: the election ends, releasing the lease if held. */
    void requestStop() {
        stopRequested = true;
        interruptElection();
    }

    /** Waits until the election thread ended (its lease released), or the deadline passed. */
    boolean awaitStopped(long deadlineNanos) {
        Thread thread;
        synchronized (this) {
            thread = election;
        }
        if (thread == null) {
            return true;
        }
        while (thread.isAlive()) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        state = LeadershipState.STOPPED;
        return true;
    }

    /**
     * Interrupts the election thread, unless it is releasing a lease: LockTable ends a lease locally before it sends
     * the release, on this thread, and an interrupt would abort that request (the lock would then stay taken for a
     * whole lease). The thread looks at the stop and yield flags once the release returns.
     */
    private synchronized void interruptElection() {
        if (election != null && !releasing) {
            election.interrupt();
        }
    }

    private boolean yielded() {
        long until = outUntilNanos;
        return until != 0 && until - System.nanoTime() > 0;
    }

    /** The election thread: contends, leads, contends again, until stopped. */
    private void elect() {
        int failuresInRow = 0;
        while (!stopRequested) {
            try {
                sitOutYield();
                if (stopRequested) {
                    break;
                }
                try {
                    locks.runAsLeader(name, leaseDuration, this::term);
                } finally {
                    releasing = false;
                }
                failuresInRow = 0;
            } catch (InterruptedException e) {
                // a yield or a stop; the loop's conditions tell which
            } catch (Exception e) {
                if (stopRequested) {
                    break;
                }
                failuresInRow++;
                recordFailure(e);
                if (failuresInRow == 1) {
                    log.error(
                            "Leadership '{}' in table '{}' failed; contending again every {} until it works",
                            name,
                            locks.tableName(),
                            leaseDuration,
                            e);
                } else {
                    log.debug("Leadership '{}' failed again ({} in a row): {}", name, failuresInRow, e.toString());
                }
                pause(leaseDuration.toNanos());
            }
        }
        state = LeadershipState.STOPPED;
    }

    /** The work of a term: runs on the term's own thread, marks the state, parks until interrupted. */
    private void term(Lease lease) throws InterruptedException {
        if (stopRequested || yielded()) {
            return; // hands the lease back at once
        }
        current = lease;
        state = LeadershipState.LEADING;
        terms.incrementAndGet();
        log.info("Leadership '{}': {} leads (fencing token {})", name, holder(), lease.fencingToken());
        events.publish(new LeadershipGrantedEvent(events.source(), name, lease));
        try {
            while (true) {
                Thread.sleep(Long.MAX_VALUE);
            }
        } finally {
            if (lease.isHeld()) {
                // ended by a yield or a stop: runAsLeader releases the lease next, on the election thread, and
                // returns; a lease that ran out has nothing to release, and runAsLeader contends again
                synchronized (this) {
                    releasing = true;
                }
            }
            current = null;
            state = stopRequested ? LeadershipState.STOPPED : LeadershipState.FOLLOWING;
            log.info(
                    "Leadership '{}': {} no longer leads (fencing token {}, {})",
                    name,
                    holder(),
                    lease.fencingToken(),
                    lease.end().map(Enum::name).orElse(stopRequested ? "stopping" : "stepping down"));
            events.publish(new LeadershipRevokedEvent(events.source(), name));
        }
    }

    private String holder() {
        return locks.options().holder().orElse(locks.owner());
    }

    private void sitOutYield() {
        while (!stopRequested && yielded()) {
            pause(outUntilNanos - System.nanoTime());
        }
    }

    private void pause(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            // a stop or a yield: the caller looks at the conditions again
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + name + ", " + status().state() + "]";
    }
}
