package io.locktable;

import io.locktable.LockStore.StoredLock;
import java.time.Duration;
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
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * A deterministic simulation of the real lock-core: 3 to 5 {@link LockTable}s over one shared in-memory table, each
 * with its own {@link ManualLockClock} running at its own rate, driven by one seeded scheduler in virtual time on one
 * thread. The seed chooses every step, action and fault: lost, late, failed, duplicated and late-landing requests,
 * pauses past the lease, items deleted by an operator, {@code close()} at any point. The invariants are checked after
 * every step of every process.
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
            process.table.close();
        }
        return new SimResult(seed, steps, now, now / leaseNanos, grants, faults, List.copyOf(violations), trace);
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
            if (process.canAct()) {
                long due = SimClocks.nextDue(process.clock, process.clock.nanoTime() + quantum);
                target = Math.min(target, Math.max(now + 1, process.timeAt(due)));
            }
        }
        for (SimProcess process : processes) {
            if (process.paused() && !process.busy && process.pausedUntil - now > 0) {
                target = Math.min(target, process.pausedUntil); // it resumes on time
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
            check("a late request landed");
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
                process.sync(now);
                if (process.canAct()) {
                    process.drainCompletions();
                }
            } catch (AssertionError e) {
                violation(process + ": a task of the table threw: " + e.getCause());
            }
            check("after " + process + "'s clock moved");
        }
    }

    private void act() {
        List<SimProcess> ready = processes.stream().filter(SimProcess::canAct).toList();
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
                    CompletableFuture<Lease> future = process.table.acquireAsync(name, lease, lease.multipliedBy(4));
                    process.waiters.add(new SimProcess.Waiter(name, future, now));
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
            } else {
                action = "nothing";
            }
        } catch (SdkException | IllegalStateException e) {
            action = "failed: " + e.getMessage(); // the faults of the simulated network, or a closed table
        } catch (AssertionError e) {
            violation(process + ": a task of the table threw: " + e.getCause());
            action = "threw";
        } catch (RuntimeException e) {
            violation(process + ": unexpected " + e);
            action = "threw";
        }
        trace(action, process.id);
        collectWaiters(process);
        check("after " + process + " " + action + " " + name);
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
                    process.handed(waiter.future().join());
                }
            }
        }
        process.leases.removeIf(l -> l.end().isPresent() && process.leases.size() > 8 && process.ended.remove(l));
    }

    /** Closes a process's table at any point: it must leave nothing held, waiting or scheduled; then restarts it. */
    private void close(SimProcess process) {
        process.table.close();
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
        process.clockOrigin = origin;
        process.clockStart = now;
        process.store = new SimStore(tableName, items, this, process);
        process.table = LockTable.Builder.over(process.store, "pk")
                .clock(process.clock)
                .completionExecutor(process.completions::add)
                .build();
        process.leases.clear();
        process.ended.clear();
        process.partitionedUntil = 0;
        process.waiters.clear();
        process.completions.clear();
        process.lastTroubleNanos = now;
    }

    // ---- the invariants

    private void check(String when) {
        for (String name : locks) {
            List<String> believers = new ArrayList<>();
            for (SimProcess process : processes) {
                if (!process.canAct()) {
                    continue; // a paused believer is allowed: that is what fencing is for
                }
                // its clock may lag the simulation's time by part of a step: the belief is read at the time now
                long lag = process.clockAt(now) - process.clock.nanoTime();
                for (Lease held : process.table.heldLeases()) {
                    if (held.name().equals(name)
                            && held.isHeld()
                            && held.remaining().toNanos() - lag > RATE_MARGIN * leaseNanos) {
                        believers.add(process + "/" + held.fencingToken() + " remaining "
                                + held.remaining().toMillis() + " ms of " + lease.toMillis() + " at local "
                                + (process.clock.nanoTime() - process.clockOrigin));
                    }
                }
            }
            Long deleted = deletedAt.get(name);
            boolean afterDeletion = deleted != null && now - deleted <= leaseNanos * (1 + 3 * RATE_BOUND);
            if (believers.size() > 1 && !afterDeletion) {
                violation("two running processes believe they hold " + name + " " + when + ": " + believers);
            }
            checkLiveness(name, when);
        }
        for (SimProcess process : processes) {
            if (!process.canAct()) {
                continue;
            }
            for (Lease lease : process.leases) {
                // on its own clock, which only moves forward: what a thread of the process would read
                boolean believed = lease.isHeld();
                if (!believed) {
                    process.ended.add(lease);
                } else if (process.ended.contains(lease)) {
                    violation(process + ": a lease that had ended is believed again " + when + ": " + lease);
                }
            }
        }
    }

    /**
     * Liveness: a free lock (released, or its item deleted) is granted to a waiter within one poll (a third of the
     * holder's lease, its jitter of a tenth and a race retry), and a lock whose holder stopped renewing within a lease
     * more; the clock-rate margin on top, counted from when the waiter started or was last hit by a fault.
     */
    private void checkLiveness(String name, String when) {
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
            if (!process.canAct()) {
                continue;
            }
            for (SimProcess.Waiter waiter : process.waiters) {
                if (waiter.name().equals(name) && !waiter.future().isDone()) {
                    long since = Math.max(free, Math.max(waiter.sinceNanos(), process.lastTroubleNanos));
                    if (now - since > bound) {
                        violation(process + " waits for " + name + ", free (or its holder silent) for "
                                + (now - free) / 1_000_000 + " ms, and was not granted it " + when);
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
    public void granted(SimStore store, StoredLock mine) {
        grants++;
        String name = mine.name();
        long fence = mine.fence();
        if (deletedSinceGrant.remove(name)) {
            long known = store.highestToken.getOrDefault(name, 0L);
            if (fence <= known && !landingNow) {
                violation("lock " + name + " granted fence " + fence + " after a deletion, to a table that was granted "
                        + known + " before");
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
