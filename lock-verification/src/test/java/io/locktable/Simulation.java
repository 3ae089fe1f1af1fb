package io.locktable;

import io.locktable.LockStore.StoredLock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * A deterministic simulation of the real lock-core: 3 to 5 {@link LockTable}s over one shared in-memory table, each
 * with its own {@link ManualLockClock} running at its own rate, driven by one seeded scheduler in virtual time on one
 * thread. The seed chooses every step, action and fault: lost, late, failed, duplicated and late-landing requests,
 * pauses past the lease, items deleted by an operator, {@code close()} at any point, listeners that block, a
 * completion executor that is busy for up to two leases, workers that are busy and timers that fall late ({@link
 * SimWorkers}), work that ignores its interrupt; elections, and {@code
 * runAsLeaderAsync} runs whose terms' work is a stage ({@link SimLeaderRun}). The invariants are checked after every
 * step of every process.
 */
final class Simulation implements SimStore.World {

    /** Clocks run within 1 % of the simulation's rate: two of them differ by at most about 2 %, inside the 5 % guard. */
    static final double RATE_BOUND = 0.01;

    /**
     * A holder's belief and a contender's takeover are both a lease long on their own clocks: with rates within {@link
     * #RATE_BOUND} of the simulation's they may overlap by (1 + bound) / (1 - bound) - 1, just over twice the bound, of a
     * lease; the timer's expiry guard (a twentieth of a lease, at most 100 ms) covers that for a timer that runs on time,
     * but a process whose clock has not caught up with this step yet has not run its timer. A belief with less than
     * three times the bound of a lease left is not counted.
     */
    static final double RATE_MARGIN = 3 * RATE_BOUND;

    private static final AtomicLong TABLES = new AtomicLong();

    /**
     * Issue 34's bound: from the moment a lease ends locally to the interrupt of the work under it, at most 200 ms
     * (here in simulated time, on the process's own clock rate).
     */
    static final long STOP_BOUND_NANOS = (long) (200_000_000L * (1 + RATE_BOUND));

    /**
     * How many names a table may remember: those in use (the simulation's locks, the one-off names of one burst and
     * a spare) and the idle ones {@link LockMemory} keeps.
     */
    private static final int NAMES_BOUND = LockMemory.IDLE_NAMES + 2 + 1 + 2;

    /** {@code runLocked}'s work under way: one at a time, on the simulation's thread. */
    private static final class Work {
        final SimProcess process;
        final long untilNanos;
        final boolean ignoresInterrupt;
        Lease lease;
        /** The work returned or threw: what ends its lease now is runLocked's own release. */
        boolean done;
        /** When the interrupt reached the work's thread; null until it does. */
        Long interruptedAt;

        final SimStopBound stop = new SimStopBound();

        Work(SimProcess process, long untilNanos, boolean ignoresInterrupt) {
            this.process = process;
            this.untilNanos = untilNanos;
            this.ignoresInterrupt = ignoresInterrupt;
        }
    }

    private Work work;
    /** The process whose listener blocks its event thread now, if any: one at a time. */
    private SimProcess blocked;

    private long entities;
    private long works;
    private final SimLeaderRun.Counts leaderRuns = new SimLeaderRun.Counts();
    private long blocks;

    private record Landing(long atNanos, long order, Runnable apply) {}

    private final long seed;
    private final Random random;
    private final Duration lease;
    private final long leaseNanos;
    private final List<String> locks;
    private final List<SimProcess> processes = new ArrayList<>();
    private final String tableName;
    private final MemoryLockStore.Items items;
    private final PriorityQueue<Landing> landings = new PriorityQueue<>((a, b) ->
            a.atNanos() != b.atNanos() ? Long.compare(a.atNanos(), b.atNanos()) : Long.compare(a.order(), b.order()));
    private final double faultChance;

    private final Map<String, Long> lastFence = new HashMap<>();
    private final Set<String> deletedSinceGrant = new HashSet<>();
    private final Map<String, Long> freeSince = new HashMap<>();
    /** Since when each held lock's item has kept its record version: a holder that stopped renewing. */
    private final Map<String, Long> unchangedSince = new HashMap<>();

    private final Map<String, String> lastRvn = new HashMap<>();
    /** When an operator last deleted each lock's item: its holder then believes until its next renewal or its end. */
    private final Map<String, Long> deletedAt = new HashMap<>();

    private final List<String> violations = new ArrayList<>();

    private long now;
    private long steps;
    private long grants;
    private long faults;
    private long order;
    private long trace = 17;
    private int depth;
    private boolean landingNow;

    Simulation(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        this.lease = Duration.ofMillis(1000 + 500L * random.nextInt(5));
        this.leaseNanos = lease.toNanos();
        int lockCount = 1 + random.nextInt(2);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < lockCount; i++) {
            names.add("lock-" + i);
        }
        this.locks = List.copyOf(names);
        this.faultChance = 0.02 + random.nextDouble() * 0.2;
        this.tableName = "sim-" + seed + "-" + TABLES.incrementAndGet();
        this.items = MemoryLockStore.Items.named(tableName);
        int count = 3 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            SimProcess process = new SimProcess(i, 1 + (random.nextDouble() * 2 - 1) * RATE_BOUND);
            start(process);
            processes.add(process);
        }
    }

    /** Runs the simulation for {@code virtual} of simulated time, or until the first violation. */
    SimResult run(Duration virtual) {
        long end = virtual.toNanos();
        while (now < end && violations.isEmpty()) {
            step();
        }
        for (SimProcess process : processes) {
            process.closing = true;
            process.table.close();
        }
        Thread.interrupted(); // a close that ended a work's lease: the simulation is over
        return new SimResult(
                seed,
                steps,
                now,
                now / leaseNanos,
                grants,
                faults,
                leaderRuns.terms,
                leaderRuns.cancelledByTheirLease,
                List.copyOf(violations),
                trace);
    }

    // ---- the steps

    private void step() {
        steps++;
        advance(untilNextTask(1_000_000 + (long) (random.nextDouble() * leaseNanos / 10)));
        if (random.nextInt(2) == 0) {
            act();
        }
    }

    /**
     * How far the next step may go: no further than the first task of any process that runs its timer, so that tasks
     * of different processes run in the order of the simulation's time, as on one real time line (a step that went
     * past one process's task and ran another's later one first would let a contender see a write before it was sent).
     */
    private long untilNextTask(long quantum) {
        long target = now + Math.max(1, quantum);
        for (SimProcess process : processes) {
            if (process.timerRuns()) {
                long due = SimClocks.nextDue(process.clock, process.clock.nanoTime() + quantum);
                target = Math.min(target, Math.max(now + 1, process.timeAt(due)));
            }
        }
        for (SimProcess process : processes) {
            if (process.paused() && !process.busy && process.pausedUntil - now > 0) {
                target = Math.min(target, process.pausedUntil); // it resumes on time
            }
            if (process.timerLateUntil != 0 && process.timerLateUntil - now > 0) {
                target = Math.min(target, process.timerLateUntil); // its timer catches up on time
            }
        }
        Landing landing = landings.peek();
        if (landing != null) {
            target = Math.min(target, Math.max(now + 1, landing.atNanos()));
        }
        return target - now;
    }

    /** Moves the simulation's time on, and every process's clock with it, in an order the seed chooses. */
    private void advance(long byNanos) {
        now += byNanos;
        while (!landings.isEmpty() && landings.peek().atNanos() - now <= 0) {
            Landing landing = landings.poll();
            trace("land", -1);
            // a late request carries what its table knew when it was sent, not now
            landingNow = true;
            try {
                landing.apply().run();
            } finally {
                landingNow = false;
            }
            check(() -> "a late request landed");
        }
        List<SimProcess> order = new ArrayList<>(processes);
        Collections.shuffle(order, random);
        for (SimProcess process : order) {
            if (process.busy) {
                continue; // its clock moves on when its late answer comes
            }
            if (process.paused() && now - process.pausedUntil >= 0) {
                // its clock has gone on while it stood still: it reads the time now before its timer runs what fell
                // due, or those tasks would run at the time of the last step, and a read among them would date what
                // it saw too early
                process.sync(now);
                process.pausedUntil = 0;
                process.lastTroubleNanos = now;
            }
            try {
                if (process.timerLateFrom != 0 && now - process.timerLateFrom >= 0) {
                    process.timerLateFrom = 0;
                    process.timerLateUntil = Math.max(process.timerLateUntil, process.timerLateTo);
                }
                if (process.timerLateUntil != 0 && now - process.timerLateUntil >= 0 && process.canAct()) {
                    // its timer catches up: what fell due while it was late runs now, in order
                    process.jumpTo(now);
                    process.timerLateUntil = 0;
                    process.lastTroubleNanos = now;
                    process.clock.advance(Duration.ZERO);
                }
                if (process.canAct() && process.workers.dueToFree(now) && random.nextBoolean()) {
                    // its timer is late: the freed workers run what queued at the time now before the timer runs
                    // what fell due meanwhile (a renewal due after its lease's end, say)
                    process.jumpTo(now);
                    process.workers.freeAt(now);
                    process.lastTroubleNanos = now;
                    if (process.timerLateUntil == 0) {
                        process.clock.advance(Duration.ZERO);
                    }
                }
                process.sync(now);
                if (process.canAct() && process.workers.freeAt(now)) {
                    process.lastTroubleNanos = now; // its renewals and polls run from now on
                }
                if (process.completionsBusyUntil != 0 && now - process.completionsBusyUntil >= 0) {
                    process.completionsBusyUntil = 0;
                    process.lastTroubleNanos = now; // its waiters hear of their grants from now on
                }
                if (process.canAct() && process.completionsBusyUntil == 0) {
                    process.drainCompletions();
                }
                if (process.canAct()) {
                    // the terms' work is user code on threads of its own: it ends whatever the completions do
                    for (SimLeaderRun run : List.copyOf(process.leaderRuns)) {
                        run.finishWork();
                    }
                }
            } catch (AssertionError e) {
                violation(process + ": a task of the table threw: " + e.getCause());
            }
            check(() -> "after " + process + "'s clock moved");
        }
    }

    private void act() {
        List<SimProcess> ready = processes.stream()
                .filter(p -> p.canAct() && !p.working && !p.listenerBlocked)
                .toList();
        if (ready.isEmpty()) {
            return;
        }
        SimProcess process = ready.get(random.nextInt(ready.size()));
        String name = locks.get(random.nextInt(locks.size()));
        int dice = random.nextInt(100);
        String action;
        try {
            if (dice < 25) {
                action = "tryAcquire";
                process.table.tryAcquire(name, lease).ifPresent(process::handed);
            } else if (dice < 40) {
                action = "acquireAsync";
                if (process.waiters.stream().noneMatch(w -> w.name().equals(name))) {
                    Duration maxWait = lease.multipliedBy(4);
                    long localStart = process.clock.nanoTime();
                    CompletableFuture<Lease> future = process.table.acquireAsync(name, lease, maxWait);
                    process.waiters.add(new SimProcess.Waiter(name, future, now, localStart, maxWait.toNanos()));
                }
            } else if (dice < 60) {
                action = "release";
                heldLease(process).ifPresent(Lease::release);
            } else if (dice < 70) {
                action = "transactWrite";
                transact(process);
            } else if (dice < 73 && depth == 0) {
                action = "pause";
                process.pausedUntil = now + leaseNanos / 2 + (long) (random.nextDouble() * leaseNanos * 3);
                process.lastTroubleNanos = process.pausedUntil;
            } else if (dice < 74) {
                action = "partition";
                partition(process);
            } else if (dice < 75) {
                action = "close";
                close(process);
            } else if (dice < 77) {
                action = "delete";
                items.delete(name);
                deletedSinceGrant.add(name);
                deletedAt.put(name, now);
                written(name);
            } else if (dice < 84 && work == null && depth == 0) {
                action = "runLocked";
                runLocked(process, name);
            } else if (dice == 91 && process.timerLateUntil == 0) {
                action = "timer late";
                process.timerLateUntil = now + (long) (random.nextDouble() * leaseNanos * 2);
            } else if (dice < 92) {
                action = "one-off names";
                oneOffNames(process);
            } else if (dice < 95) {
                action = "leadership";
                leadership(process, name);
            } else if (dice < 97 && process.completionsBusyUntil == 0) {
                action = "completions busy";
                process.completionsBusyUntil = now + (long) (random.nextDouble() * leaseNanos * 2);
            } else if (dice < 98 && !process.workers.busy()) {
                action = "workers busy";
                long until = now + (long) (random.nextDouble() * leaseNanos * 2);
                process.workers.busyUntil(until);
                if (random.nextBoolean() && process.timerLateFrom == 0) {
                    // starved as a whole: its timer falls late during the spell and catches up after the workers
                    // free, so that what they queued (a renewal) runs after its lease's end, before the expiry watch
                    process.timerLateFrom = now + (until - now) / 2;
                    process.timerLateTo = until + (long) (random.nextDouble() * leaseNanos / 2);
                }
            } else if (dice < 99) {
                action = "runAsLeaderAsync";
                leaderRun(process, name);
            } else {
                action = "nothing";
            }
        } catch (SdkException | IllegalStateException e) {
            action = "failed: " + e.getMessage(); // the faults of the simulated network, or a closed table
        } catch (AssertionError e) {
            violation(process + ": a task of the table threw: " + e.getCause());
            action = "threw";
        } catch (Exception e) {
            violation(process + ": unexpected " + e);
            action = "threw";
        }
        trace(action, process.id);
        collectWaiters(process);
        String acted = action;
        check(() -> "after " + process + " " + acted + " " + name);
    }

    /** Cuts a running process off the table for a while: its renewals fail, it goes on believing until its end. */
    private void partition(SimProcess process) {
        process.partitionedUntil = now + leaseNanos / 2 + (long) (random.nextDouble() * leaseNanos * 3);
        process.lastTroubleNanos = process.partitionedUntil;
    }

    private java.util.Optional<Lease> heldLease(SimProcess process) {
        List<Lease> held = process.leases.stream().filter(Lease::isHeld).toList();
        return held.isEmpty()
                ? java.util.Optional.empty()
                : java.util.Optional.of(held.get(random.nextInt(held.size())));
    }

    /** A held check of an ended acquisition must never pass. */
    private void transact(SimProcess process) {
        if (process.leases.isEmpty()) {
            return;
        }
        Lease lease = process.leases.get(random.nextInt(process.leases.size()));
        boolean endedBefore = lease.end().isPresent();
        try {
            lease.transactWrite();
        } catch (LeaseLostException | TransactionCanceledException e) {
            return;
        }
        StoredLock item = items.get(lease.name());
        if (endedBefore) {
            violation(process + ": the held check of an ended acquisition passed: " + lease);
        } else if (item == null || !lease.owner().equals(item.owner()) || item.fence() != lease.fencingToken()) {
            violation(process + ": a held check passed on an item another acquisition owns: " + item);
        }
    }

    private void collectWaiters(SimProcess process) {
        Iterator<SimProcess.Waiter> it = process.waiters.iterator();
        while (it.hasNext()) {
            SimProcess.Waiter waiter = it.next();
            if (waiter.future().isDone()) {
                it.remove();
                if (!waiter.future().isCompletedExceptionally()) {
                    Lease granted = waiter.future().join();
                    Long sent = process.store.acquireSentAt.get(granted.owner());
                    if (sent != null && sent - (waiter.localStart() + waiter.maxWaitNanos()) >= 0) {
                        violation(process + ": acquireAsync of " + waiter.name() + " was handed a lease whose acquire"
                                + " was sent " + (sent - waiter.localStart()) / 1_000_000 + " ms into a wait of "
                                + waiter.maxWaitNanos() / 1_000_000 + " ms: " + granted);
                    }
                    process.handed(granted);
                }
            }
        }
        process.leases.removeIf(l -> l.end().isPresent() && process.leases.size() > 8 && process.ended.remove(l));
    }

    /** Closes a process's table at any point: it must leave nothing held, waiting or scheduled; then restarts it. */
    private void close(SimProcess process) {
        process.closing = true;
        process.table.close();
        process.closing = false;
        process.workers.closed();
        process.drainCompletions();
        if (!process.table.heldLeases().isEmpty()) {
            violation(process + ": leases still held after close(): " + process.table.heldLeases());
        }
        for (Lease lease : process.leases) {
            if (lease.isHeld()) {
                violation(process + ": a lease still believes it holds after close(): " + lease);
            }
        }
        for (SimProcess.Waiter waiter : process.waiters) {
            if (!waiter.future().isDone()) {
                violation(process + ": a waiting acquire still waits after close(): " + waiter.name());
            }
        }
        for (SimLeaderRun run : process.leaderRuns) {
            run.closed();
        }
        String left = SimClocks.pendingTasksOtherThanGiveBacks(process.clock);
        if (!left.isEmpty()) {
            violation(process + ": tasks still scheduled after close(): " + left);
        }
        start(process);
    }

    private void start(SimProcess process) {
        process.incarnation++;
        long origin = random.nextInt(4) == 0 ? Long.MAX_VALUE - leaseNanos * 2 : random.nextLong();
        process.clock = new ManualLockClock(origin);
        process.workers = new SimWorkers(process.clock, () -> process.closing);
        process.clockOrigin = origin;
        process.clockStart = now;
        process.store = new SimStore(tableName, items, this, process);
        process.table = LockTable.Builder.over(process.store, "pk")
                .clock(process.workers)
                .completionExecutor(process.completions::add)
                .listener(new LockTableListener() {
                    @Override
                    public void onLost(Lease ended, LeaseEnd reason) {
                        maybeBlock(process, ended);
                    }

                    @Override
                    public void onReleased(Lease released) {
                        maybeBlock(process, released);
                    }

                    @Override
                    public void onRenewalFailed(Lease failed, Exception error) {
                        maybeBlock(process, failed);
                    }
                })
                .build();
        process.leases.clear();
        process.ended.clear();
        process.partitionedUntil = 0;
        process.waiters.clear();
        process.leaderships.clear();
        process.leaderRuns.clear();
        process.completions.clear();
        process.completionsBusyUntil = 0;
        process.timerLateUntil = 0;
        process.timerLateFrom = 0;
        process.lastTroubleNanos = now;
    }

    // ---- the invariants

    /** A running process that believes it holds a lease, described only for a violation. */
    private record Belief(SimProcess process, Lease lease) {
        String describe() {
            return process + "/" + lease.fencingToken() + " remaining "
                    + lease.remaining().toMillis() + " ms at local " + (process.clock.nanoTime() - process.clockOrigin);
        }
    }

    private void check(Supplier<String> when) {
        checkWork(when);
        Map<String, List<Belief>> believers = new HashMap<>();
        for (SimProcess process : processes) {
            if (!process.canAct()) {
                continue; // a paused believer is allowed: that is what fencing is for
            }
            // its clock may lag the simulation's time by part of a step: the belief is read at the time now
            long lag = process.clockAt(now) - process.clock.nanoTime();
            for (Lease held : process.table.heldLeases()) {
                if (held.isHeld() && held.remaining().toNanos() - lag > RATE_MARGIN * leaseNanos) {
                    believers
                            .computeIfAbsent(held.name(), n -> new ArrayList<>())
                            .add(new Belief(process, held));
                }
            }
        }
        for (String name : locks) {
            List<Belief> believing = believers.getOrDefault(name, List.of());
            Long deleted = deletedAt.get(name);
            boolean afterDeletion = deleted != null && now - deleted <= leaseNanos * (1 + 3 * RATE_BOUND);
            if (believing.size() > 1 && !afterDeletion) {
                violation("two running processes believe they hold " + name + " " + when.get() + ": "
                        + believing.stream().map(Belief::describe).toList());
            }
            checkLiveness(name, when);
        }
        for (SimProcess process : processes) {
            if (!process.canAct()) {
                continue;
            }
            checkMemory(process, when);
            readBeliefs(process, when);
        }
        for (SimProcess process : processes) {
            for (SimLeaderRun run : process.leaderRuns) {
                run.check(when);
            }
            process.leaderRuns.removeIf(SimLeaderRun::over);
        }
    }

    /**
     * Reads whether each of the process's leases is held, on its own clock, which only moves forward: what a thread of
     * the process would read. A lease once seen ended must never be believed again (invariant 5).
     */
    private void readBeliefs(SimProcess process, Supplier<String> when) {
        for (Lease lease : process.leases) {
            if (!lease.isHeld()) {
                process.ended.add(lease);
            } else if (process.ended.contains(lease)) {
                violation(process + ": a lease that had ended is believed again " + when.get() + ": " + lease);
            }
        }
    }

    /**
     * The work under a lease is told to stop (its thread interrupted) within {@link #STOP_BOUND_NANOS} of the lease's
     * end on its process's clock, whatever a listener does meanwhile; and no interrupt reaches the thread of a work
     * that is over. A paused or busy process is not counted (its timer does not run: what fencing is for).
     */
    private void checkWork(Supplier<String> when) {
        if (Thread.interrupted()) {
            if (work == null || work.lease == null) {
                violation("an interrupt reached a thread that runs no work under a lease " + when.get());
            } else if (work.interruptedAt == null) {
                work.interruptedAt = now;
            }
        }
        Work running = work;
        if (running == null || running.lease == null || running.done || running.interruptedAt != null) {
            return;
        }
        long overdue = running.stop.overdueNanos(running.lease, running.process.timerRuns(), now);
        if (overdue > 0) {
            violation(running.process + ": runLocked's work under " + running.lease + " (ended: "
                    + running.lease.end().orElse(null) + ") was not interrupted " + overdue / 1_000_000
                    + " ms after its lease ended " + when.get());
        }
    }

    /** What a table remembers stays bounded: the names in use and {@link LockMemory#IDLE_NAMES} idle ones. */
    private void checkMemory(SimProcess process, Supplier<String> when) {
        int kept = process.table.fenceMarks();
        if (kept > NAMES_BOUND) {
            violation(
                    process + ": its table remembers " + kept + " names, more than " + NAMES_BOUND + " " + when.get());
        }
    }

    // ---- runLocked, blocking listeners, one-off names

    /**
     * Runs {@code runLocked} with work that goes on for up to three leases of simulated time (the world moves on
     * meanwhile, this process's timer too) and stops at its interrupt, or, a quarter of the time, ignores it.
     */
    private void runLocked(SimProcess process, String name) throws Exception {
        Work running = new Work(process, now + (long) (random.nextDouble() * leaseNanos * 3), random.nextInt(4) == 0);
        work = running;
        process.working = true;
        works++;
        try {
            process.table.runLocked(name, lease, Duration.ZERO, () -> {
                try {
                    doWork(running);
                } finally {
                    running.done = true;
                }
                return "done";
            });
        } catch (LeaseLostException | InterruptedException expected) {
            // the lease ended while the work ran: reported to the caller, as it must be
        } finally {
            process.working = false;
            work = null;
            if (Thread.interrupted() && running.interruptedAt == null) {
                running.interruptedAt = now; // the interrupt of the work's own end, not yet seen by a check
            }
        }
    }

    private void doWork(Work running) throws InterruptedException {
        Lease mine = Lease.current().orElseThrow();
        running.lease = mine;
        if (!mine.isHeld()) {
            violation(running.process + ": runLocked runs its work under a lease that is not held: " + mine);
        }
        while (now - running.untilNanos < 0 && violations.isEmpty()) {
            steps++;
            advance(untilNextTask(
                    Math.min(running.untilNanos - now, 1_000_000 + (long) (random.nextDouble() * leaseNanos / 10))));
            if (random.nextInt(2) == 0) {
                act();
            }
            if (running.interruptedAt != null && !running.ignoresInterrupt) {
                throw new InterruptedException("the lease ended");
            }
        }
    }

    /**
     * A listener that blocks the event thread for up to two leases, mostly on the end of a work's lease: the work
     * must have been told to stop before any listener hears of the end.
     */
    private void maybeBlock(SimProcess process, Lease about) {
        if (blocked != null || depth > 0 || process.closing || process.busy || !process.canAct()) {
            return;
        }
        boolean workLease = work != null && work.lease == about;
        if (random.nextInt(workLease ? 2 : 20) != 0) {
            return;
        }
        blocked = process;
        process.listenerBlocked = true;
        blocks++;
        trace("listener blocks", process.id);
        long until = now + (long) (random.nextDouble() * leaseNanos * 2);
        try {
            while (now - until < 0 && violations.isEmpty()) {
                steps++;
                advance(untilNextTask(
                        Math.min(until - now, 1_000_000 + (long) (random.nextDouble() * leaseNanos / 10))));
                if (random.nextInt(2) == 0) {
                    act();
                }
            }
        } finally {
            process.listenerBlocked = false;
            blocked = null;
        }
    }

    /**
     * Starts an election, or steps down from one for no time, a lease or forever (which saturates: issue 34's
     * overflow), or stops one. A term's lease is a lease like any: the invariants hold it too.
     */
    private void leadership(SimProcess process, String name) {
        List<Leadership> mine = process.leaderships;
        Leadership existing =
                mine.stream().filter(l -> l.name().equals(name)).findFirst().orElse(null);
        if (existing == null) {
            mine.add(process.table.lead(name, lease));
            return;
        }
        int what = random.nextInt(4);
        if (what == 3) {
            existing.stopAsync();
            mine.remove(existing);
            return;
        }
        Duration coolDown = what == 0 ? Duration.ZERO : what == 1 ? lease : ChronoUnit.FOREVER.getDuration();
        existing.stepDownAsync(coolDown); // must not throw, whatever the cool-down
    }

    /**
     * Leads on a lock with {@code runAsLeaderAsync} (its terms' work a stage that ends on its own, or is cancelled by
     * its lease's end), or cancels such a run, as a user stopping it.
     */
    private void leaderRun(SimProcess process, String name) {
        SimLeaderRun existing = process.leaderRuns.stream()
                .filter(run -> run.name().equals(name) && run.running())
                .findFirst()
                .orElse(null);
        if (existing == null) {
            process.leaderRuns.add(
                    new SimLeaderRun(process, name, lease, random, () -> now, this::violation, leaderRuns));
        } else if (random.nextInt(3) == 0) {
            existing.cancel();
        }
    }

    /** A burst of names tried once each and released at once, as a service that locks one name per entity. */
    private void oneOffNames(SimProcess process) {
        int count = 16 + random.nextInt(48); // enough per incarnation to pass what a table keeps idle
        for (int i = 0; i < count; i++) {
            process.table.tryAcquire("entity-" + entities++, lease).ifPresent(Lease::release);
        }
    }

    /**
     * Liveness: a free lock (released, or its item deleted) is granted to a waiter within one poll (a third of the
     * holder's lease, its jitter of a tenth and a race retry), and a lock whose holder stopped renewing within a lease
     * more; the clock-rate margin on top, counted from when the waiter started or was last hit by a fault.
     */
    private void checkLiveness(String name, Supplier<String> when) {
        Long free = freeSince.get(name);
        long bound = (long) ((leaseNanos * 11 / 30 + 150_000_000L) * (1 + 3 * RATE_BOUND));
        if (free == null) {
            // a holder that stopped renewing: taken over within a lease, a third and one poll of the waiter's sight
            free = unchangedSince.get(name);
            bound += (long) (leaseNanos * (1 + 3 * RATE_BOUND));
        }
        if (free == null) {
            return;
        }
        for (SimProcess process : processes) {
            if (!process.timerRuns() || process.completionsBusyUntil != 0 || process.workers.busy()) {
                continue; // a busy completion executor holds back what a waiter is told
            }
            for (SimProcess.Waiter waiter : process.waiters) {
                if (waiter.name().equals(name) && !waiter.future().isDone()) {
                    long since = Math.max(free, Math.max(waiter.sinceNanos(), process.lastTroubleNanos));
                    if (now - since > bound) {
                        violation(process + " waits for " + name + ", free (or its holder silent) for "
                                + (now - free) / 1_000_000 + " ms, and was not granted it " + when.get());
                    }
                }
            }
        }
    }

    // ---- what the stores tell the simulation

    @Override
    public SimFault fault(SimProcess process, String operation) {
        SimFault fault = SimFault.NONE;
        if (process.partitionedUntil != 0 && now - process.partitionedUntil < 0) {
            fault = random.nextInt(4) == 0 ? SimFault.LANDS_LATER : SimFault.FAIL_BEFORE;
            faults++;
            process.lastTroubleNanos = now;
        } else if (random.nextDouble() < faultChance) {
            SimFault[] all = SimFault.values();
            fault = all[1 + random.nextInt(all.length - 1)];
            if (fault == SimFault.LATE_ANSWER && depth > 0) {
                fault = SimFault.LOST_AFTER; // one late answer at a time: the world moves on inside it
            }
            faults++;
            process.lastTroubleNanos = now;
        }
        trace(
                operation
                        + fault
                        + (events != null ? " local=" + (process.clock.nanoTime() - process.clockOrigin) : ""),
                process.id);
        return fault;
    }

    @Override
    public void answerLate(SimProcess process) {
        long until = now + (long) (random.nextDouble() * leaseNanos * 3);
        process.busy = true;
        depth++;
        try {
            while (now - until < 0 && violations.isEmpty()) {
                steps++;
                advance(untilNextTask(
                        Math.min(until - now, 1_000_000 + (long) (random.nextDouble() * leaseNanos / 10))));
                if (random.nextInt(2) == 0) {
                    act();
                }
            }
        } finally {
            depth--;
            process.sync(now); // a jump: its timer runs what fell due once the call it is in returns
            process.busy = false;
            process.lastTroubleNanos = now;
            // read before the late answer reaches the table: a lease that ran out meanwhile must stay ended whatever
            // that answer says
            readBeliefs(process, () -> "as a late answer returns");
            if (random.nextInt(3) == 0) {
                partition(process); // the late answer was the last one to get through
            }
        }
    }

    @Override
    public void landLater(SimProcess process, Runnable apply) {
        landings.add(new Landing(now + (long) (random.nextDouble() * leaseNanos * 3), order++, apply));
    }

    @Override
    public void written(String name) {
        StoredLock item = items.get(name);
        if (item == null || item.owner() == null) {
            freeSince.putIfAbsent(name, now);
            unchangedSince.remove(name);
            lastRvn.remove(name);
        } else {
            freeSince.remove(name);
            if (!item.rvn().equals(lastRvn.put(name, item.rvn()))) {
                unchangedSince.put(name, now);
            }
        }
    }

    @Override
    public void granted(SimStore store, StoredLock mine, long floor, boolean memoryFull) {
        grants++;
        String name = mine.name();
        long fence = mine.fence();
        if (deletedSinceGrant.remove(name)) {
            long known = store.highestToken.getOrDefault(name, 0L);
            // a table that keeps as many names as it may has forgotten the lock's token legitimately: the new holder's
            // lower token is logged as a regression, and fenced systems refuse it (LockMemory's bound)
            boolean forgotten = floor < known && memoryFull;
            if (fence <= known && !landingNow && !forgotten) {
                violation("lock " + name + " granted fence " + fence + " after a deletion, to a table that was granted "
                        + known + " before (its acquire's floor: " + floor + ", its memory "
                        + (memoryFull ? "full" : "not full") + ")");
            }
        } else {
            Long last = lastFence.get(name);
            if (last != null && fence <= last) {
                violation("lock " + name + " granted fence " + fence + " after fence " + last);
            }
        }
        lastFence.put(name, fence);
    }

    @Override
    public void violation(String what) {
        if (events != null && violations.isEmpty()) {
            events.subList(
                            Math.max(0, events.size() - Integer.getInteger("locktable.sim.eventCount", 80)),
                            events.size())
                    .forEach(System.out::println);
        }
        violations.add("t=" + now / 1_000_000 + "ms step " + steps + ": " + what);
    }

    /** Every traced event, when asked for: to find what differs between two runs of one seed. */
    final List<String> events = Boolean.getBoolean("locktable.sim.events") ? new ArrayList<>() : null;

    private void trace(String what, int process) {
        if (events != null) {
            events.add(now + " p" + process + " " + what + " tlr=" + SimRunner.tlrSeed());
        }
        trace = trace * 31 + what.hashCode();
        trace = trace * 31 + process;
        trace = trace * 31 + now;
    }
}
