package io.locktable.spring;

import io.locktable.LeaderTermListener;
import io.locktable.Leadership;
import io.locktable.Lease;
import io.locktable.LockTable;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One name of a {@link LeaderRunner}: lock-core's {@link Leadership} of the name, the gate that admits {@code
 * LeaderOnly} calls while this instance leads and counts those in flight, and what the status reports. An election
 * that ends on an error that is not transient (a missing table, say) is started again a lease later.
 */
final class LeadershipGate implements LeaderTermListener {

    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);

    /** A failure of the leadership, as the status reports it. */
    private record Failure(String error, Instant at) {}

    private final String name;
    private final Duration leaseDuration;
    private final LockTable locks;
    private final EventThread events;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final ThreadLocal<int[]> ownCalls = ThreadLocal.withInitial(() -> new int[1]);
    private final ReentrantLock callsLock = new ReentrantLock();
    /** Signalled, under {@link #callsLock}, when a call leaves. */
    private final Condition callLeft = callsLock.newCondition();

    private final AtomicLong terms = new AtomicLong();
    private final LongAdder skipped = new LongAdder();

    private volatile boolean accepting;
    private volatile boolean stopRequested;
    private volatile @Nullable Lease current;
    private volatile LeadershipState state = LeadershipState.STOPPED;
    private volatile long outUntilNanos; // 0: not yielded
    private volatile @Nullable Failure lastFailure;
    private @Nullable Leadership election; // guarded by this
    private int failuresInRow; // guarded by this

    LeadershipGate(String name, Duration leaseDuration, LockTable locks, EventThread events) {
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
        if (election != null && !election.whenStopped().isDone()) {
            return;
        }
        stopRequested = false;
        accepting = true;
        state = LeadershipState.FOLLOWING;
        elect();
    }

    /** Starts an election of lock-core; one that ends on an error is started again a lease later. */
    private synchronized void elect() {
        if (stopRequested || (election != null && !election.whenStopped().isDone())) {
            return; // stopped meanwhile, or started again by start()
        }
        Leadership started = locks.lead(name, leaseDuration, this);
        election = started;
        started.whenStopped().whenComplete((ignored, error) -> {
            if (error != null) {
                failed(started, error);
            } else {
                state = LeadershipState.STOPPED;
            }
        });
    }

    private void failed(Leadership ended, Throwable error) {
        int inRow;
        synchronized (this) {
            if (stopRequested || election != ended) {
                return;
            }
            inRow = ++failuresInRow;
        }
        recordFailure(error);
        if (inRow == 1) {
            log.error(
                    "Leadership '{}' in table '{}' failed; contending again every {} until it works",
                    name,
                    locks.tableName(),
                    leaseDuration,
                    error);
        } else {
            log.debug("Leadership '{}' failed again ({} in a row): {}", name, inRow, error.toString());
        }
        CompletableFuture.delayedExecutor(leaseDuration.toMillis(), TimeUnit.MILLISECONDS)
                .execute(this::elect);
    }

    boolean isLeader() {
        return lease().isPresent();
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
        Optional<Lease> lease = admit();
        if (lease.isPresent()) {
            ownCalls.get()[0]++;
        }
        return lease;
    }

    /**
     * Admits a call as {@link #enter()} does, for work that ends on any thread (a publisher, a future): it counts as
     * a call in flight on another thread, for which a step-down or a stop waits; the caller must {@link #leave()}
     * when the work ends.
     */
    Optional<Lease> admit() {
        inFlight.incrementAndGet();
        Lease lease = current;
        if (!accepting || yielded() || lease == null || !lease.isHeld()) {
            leave();
            skipped.increment();
            return Optional.empty();
        }
        return Optional.of(lease);
    }

    void exit() {
        int[] own = ownCalls.get();
        if (--own[0] <= 0) {
            ownCalls.remove();
        }
        leave();
    }

    /** A call admitted by {@link #admit()} ended. */
    void leave() {
        inFlight.decrementAndGet();
        callsLock.lock();
        try {
            callLeft.signalAll();
        } finally {
            callsLock.unlock();
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
    @Nullable
    Lease beginYield(Duration coolDown) {
        long until = System.nanoTime() + coolDown.toNanos();
        outUntilNanos = until == 0 ? 1 : until;
        return current;
    }

    /**
     * Second step of a step-down, which may block: waits for the calls in flight on other threads (at most one
     * lease), then has the election release the lease (at most the release's bound) and sit out the rest of the
     * cool-down.
     */
    void finishYield(@Nullable Lease lease) {
        if (lease != null) {
            awaitCalls(System.nanoTime() + leaseDuration.toNanos());
        }
        Duration coolDown = Duration.ofNanos(Math.max(0, outUntilNanos - System.nanoTime()));
        Leadership running;
        synchronized (this) {
            running = election;
        }
        if (running != null) {
            running.stepDown(coolDown);
        }
        log.info("Leadership '{}': stepped down, staying out of the election for {}", name, coolDown);
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
        callsLock.lock();
        try {
            while (inFlight.get() > own) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    log.warn(
                            "Leadership '{}': {} @LeaderOnly calls still running; stepping down anyway",
                            name,
                            inFlight.get() - own);
                    return false;
                }
                callLeft.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            callsLock.unlock();
        }
        return true;
    }

    /** Second step of a stop, without waiting: the election ends, releasing the lease if held. */
    void requestStop() {
        Leadership running;
        synchronized (this) {
            stopRequested = true;
            running = election;
        }
        if (running != null) {
            running.stopAsync();
        } else {
            state = LeadershipState.STOPPED;
        }
    }

    /** Waits until the election ended (its lease released), or the deadline passed. */
    boolean awaitStopped(long deadlineNanos) {
        Leadership running;
        synchronized (this) {
            running = election;
        }
        if (running != null) {
            try {
                running.whenStopped().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                // ended on an error before the stop: stopped all the same
            }
        }
        state = LeadershipState.STOPPED;
        return true;
    }

    private boolean yielded() {
        long until = outUntilNanos;
        return until != 0 && until - System.nanoTime() > 0;
    }

    /** A term started, on the election's thread: marks the state and tells the application. */
    @Override
    public void onTermStarted(Lease lease) {
        synchronized (this) {
            failuresInRow = 0;
        }
        current = lease;
        state = LeadershipState.LEADING;
        terms.incrementAndGet();
        log.info("Leadership '{}': {} leads (fencing token {})", name, holder(), lease.fencingToken());
        events.publish(new LeadershipGrantedEvent(events.source(), name, lease));
    }

    /** The term ended, on the election's thread: marks the state and tells the application. */
    @Override
    public void onTermEnded(Lease lease) {
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

    private String holder() {
        return locks.options().holder().orElse(locks.owner());
    }

    @Override
    public String toString() {
        return "LeadershipGate[" + name + ", " + status().state() + "]";
    }
}
