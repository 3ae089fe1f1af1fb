package io.locktable;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One simulated process: a real {@link LockTable} over its own {@link SimStore} and {@link ManualLockClock}, whose
 * clock runs at its own rate of the simulation's time. A process can stand still (paused: its clock goes on, its
 * timer does not run), wait for a late answer (busy), and be closed and started again (a new incarnation, with a new
 * table and clock, that knows nothing of the last one).
 */
final class SimProcess {

    /**
     * A waiting acquire, when it started in the simulation's time and on its own clock, and how long it may wait.
     */
    record Waiter(String name, CompletableFuture<Lease> future, long sinceNanos, long localStart, long maxWaitNanos) {}

    final int id;
    final double rate;
    int incarnation;
    ManualLockClock clock;
    /** The clock its table sees: {@link #clock} with workers that can be busy. */
    SimWorkers workers;

    LockTable table;
    SimStore store;
    /** The simulation's time at which this clock read {@link #clockOrigin}. */
    long clockStart;

    long clockOrigin;
    /** Until when it stands still, in the simulation's time; 0 when running. */
    long pausedUntil;

    boolean busy;
    /**
     * Until when its timer is late (its thread starved), in the simulation's time; 0 when on time. Its callers and
     * workers go on meanwhile, its timer runs nothing: no renewal falls due, no lease is ended by its expiry watch.
     */
    long timerLateUntil;
    /** When its timer falls late, and until when, in the simulation's time; 0 when that is not planned. */
    long timerLateFrom;

    long timerLateTo;
    /** Its caller's thread runs {@code runLocked}'s work: it takes no other action meanwhile. */
    boolean working;
    /** A listener of its table blocks its event thread: its timer goes on, its callers take no action. */
    boolean listenerBlocked;
    /**
     * Until when its completion executor is busy, in the simulation's time; 0 when not: completions queue meanwhile,
     * so its async acquires and their waiters hear of their grants late.
     */
    long completionsBusyUntil;
    /** Its table is being closed. */
    boolean closing;
    /** Until when none of its requests gets through while it keeps running, in the simulation's time; 0 when none. */
    long partitionedUntil;
    /** The last time a fault, a pause or a late answer hit it: the liveness bound counts from there. */
    long lastTroubleNanos;

    final List<Lease> leases = new ArrayList<>();
    /** Leases this process has seen end: none may ever be believed again. */
    final java.util.Set<Lease> ended = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    final List<Waiter> waiters = new ArrayList<>();
    /** The elections its table runs. */
    final List<Leadership> leaderships = new ArrayList<>();
    /** Its calls of {@code runAsLeaderAsync}. */
    final List<SimLeaderRun> leaderRuns = new ArrayList<>();
    /** The completion executor: completions run when the simulation drains them, on its thread. */
    final ArrayDeque<Runnable> completions = new ArrayDeque<>();
    /** How many completions the completion executor is running now (one inside another's wait): user code it calls runs there. */
    int runningCompletions;

    SimProcess(int id, double rate) {
        this.id = id;
        this.rate = rate;
    }

    /** A lease handed to the user: its table knows its token from now on. */
    void handed(Lease lease) {
        leases.add(lease);
        store.highestToken.merge(lease.name(), lease.fencingToken(), Math::max);
    }

    boolean paused() {
        return pausedUntil != 0;
    }

    boolean canAct() {
        return !paused() && !busy;
    }

    /** It runs and so does its timer: what ends a lease on time can. */
    boolean timerRuns() {
        return canAct() && timerLateUntil == 0;
    }

    /** This process's clock reading at the simulation's time {@code now}. */
    long clockAt(long now) {
        return clockOrigin + Math.round(rate * (now - clockStart));
    }

    /** The simulation's time at which its clock reads {@code local}: the first moment {@link #clockAt} reaches it. */
    long timeAt(long local) {
        return clockStart + (long) Math.ceil((local - clockOrigin) / rate) + 1;
    }

    /** Moves its clock to the simulation's time without running its timer: a timer that is late. */
    void jumpTo(long now) {
        long by = clockAt(now) - clock.nanoTime();
        if (by > 0) {
            clock.jump(Duration.ofNanos(by));
        }
    }

    /** Moves its clock to the simulation's time, running due tasks unless it stands still. */
    void sync(long now) {
        long by = clockAt(now) - clock.nanoTime();
        if (by <= 0) {
            return;
        }
        if (paused() || busy || timerLateUntil != 0) {
            clock.jump(Duration.ofNanos(by));
        } else {
            clock.advance(Duration.ofNanos(by));
        }
    }

    void drainCompletions() {
        Runnable next;
        while ((next = completions.poll()) != null) {
            runningCompletions++;
            try {
                next.run();
            } finally {
                runningCompletions--;
            }
        }
    }

    @Override
    public String toString() {
        return "p" + id + "." + incarnation;
    }
}
