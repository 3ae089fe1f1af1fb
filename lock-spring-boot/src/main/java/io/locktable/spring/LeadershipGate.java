package io.locktable.spring;

import io.locktable.LeaderTermListener;
import io.locktable.Leadership;
import io.locktable.Lease;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One name of a {@link LeaderRunner}: lock-core's {@link Leadership} of the name (which contends again a lease after
 * an error), and the gate that admits {@code LeaderOnly} calls while this instance leads and counts those in flight,
 * for a step-down or a stop to wait for them without a thread waiting.
 *
 * <p>The lease, whether it leads, the cool-down of a step-down and the errors of its acquires are the {@link
 * Leadership}'s, read from it; the gate keeps only what lock-core has no notion of: the calls in flight, whether it
 * admits calls (not while stopping or stepping down), the terms won and the calls skipped, and the last failed
 * renewal of a term's lease (which lock-core reports to listeners only).
 */
final class LeadershipGate implements LeaderTermListener {

    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);

    /** A failure of the leadership, as the status reports it. */
    private record Failure(String error, Instant at) {}

    /** Another instance's term, as this instance's reads of the item showed it: first and last seen. */
    private record Sighting(LockRecord holder, Instant since, Instant seenAt) {}

    /** A wait for the calls in flight, but a caller's own, to end: {@code done} completes true when they have. */
    private record Drain(int own, CompletableFuture<Boolean> done) {}

    private final String name;
    private final Duration leaseDuration;
    private final LockTable locks;
    private final EventThread events;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final ThreadLocal<int[]> ownCalls = ThreadLocal.withInitial(() -> new int[1]);
    private final Queue<Drain> drains = new ConcurrentLinkedQueue<>();
    private final AtomicLong terms = new AtomicLong();
    private final LongAdder skipped = new LongAdder();

    /** How many step-downs are draining the calls in flight: no call is admitted meanwhile. */
    private final AtomicInteger yielding = new AtomicInteger();

    private volatile boolean accepting;
    private volatile boolean stopRequested;
    private volatile @Nullable Failure lastRenewalFailure;
    /** The lease of the last term won, to tell its renewal failures (heard after the fact) from other leases'. */
    private volatile @Nullable Lease lastTerm;
    /** Another instance's term, as this instance's reads of the item showed it: for the endpoint, not a decision. */
    private final AtomicReference<@Nullable Sighting> sighting = new AtomicReference<>();

    private volatile @Nullable Leadership election; // written under this

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
        election = locks.lead(name, leaseDuration, this, leaseDuration);
    }

    boolean isLeader() {
        return lease().isPresent();
    }

    Optional<Lease> lease() {
        Leadership running = election;
        return running == null ? Optional.empty() : running.lease();
    }

    LeadershipStatus status() {
        Leadership running = election;
        LeadershipState reported;
        if (running == null || stopRequested || running.whenStopped().isDone()) {
            reported = LeadershipState.STOPPED;
        } else {
            reported = running.isLeader() ? LeadershipState.LEADING : LeadershipState.FOLLOWING;
        }
        Failure failure = lastRenewalFailure; // an acquire's is the election's own
        Instant electionErrorAt = running == null ? null : running.lastErrorAt().orElse(null);
        if (electionErrorAt != null && (failure == null || electionErrorAt.isAfter(failure.at()))) {
            failure = new Failure(running.lastError().map(Throwable::toString).orElse(""), electionErrorAt);
        }
        Optional<Failure> last = Optional.ofNullable(failure);
        return new LeadershipStatus(name, reported, terms.get(), last.map(Failure::error), last.map(Failure::at));
    }

    /** An acquire of this name found another holder in the item (the table's event): it leads, as far as we know. */
    void saw(LockRecord holder) {
        if (holder.owner().isEmpty()) {
            return;
        }
        Instant now = Instant.now();
        sighting.updateAndGet(known -> known != null
                        && known.holder().owner().equals(holder.owner())
                        && known.holder().fencingToken() == holder.fencingToken()
                ? new Sighting(holder, known.since(), now)
                : new Sighting(holder, now, now));
    }

    /** This instance while it leads; else the holder last read in the item, unless this instance led after it. */
    Optional<CurrentLeader> leader() {
        Optional<Lease> mine = lease();
        if (mine.isPresent()) {
            Lease lease = mine.get();
            return Optional.of(new CurrentLeader(
                    lease.owner(),
                    locks.options().holder(),
                    lease.fencingToken(),
                    lease.acquiredAt(),
                    lease.renewedAt(),
                    true));
        }
        Sighting seen = sighting.get();
        return Optional.ofNullable(seen)
                .map(s -> new CurrentLeader(
                        s.holder().owner().orElseThrow(),
                        s.holder().holder(),
                        s.holder().fencingToken(),
                        s.since(),
                        s.seenAt(),
                        false));
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
     * a call in flight on another thread, for which a step-down or a stop waits; the caller must {@link #leave()}.
     */
    Optional<Lease> admit() {
        inFlight.incrementAndGet();
        Optional<Lease> lease = accepting && yielding.get() == 0 ? lease() : Optional.empty();
        if (lease.isEmpty()) {
            leave();
            skipped.increment();
        }
        return lease;
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
        drained();
    }

    private void drained() {
        for (Drain drain : drains) {
            if (inFlight.get() <= drain.own()) {
                drain.done().complete(true);
            }
        }
    }

    /** A renewal of a term's lease failed: the status reports it, beside the election's own errors. */
    void recordRenewalFailure(Lease lease, Throwable error) {
        if (lastTerm == lease) {
            lastRenewalFailure = new Failure(error.toString(), Instant.now());
        }
    }

    /**
     * Completes when the calls in flight have ended, but the caller's own if {@code ownExcluded} (a blocking yield
     * from inside a call), or after {@code within} (then logged): true if they ended.
     */
    private CompletableFuture<Boolean> callsEnded(Duration within, boolean ownExcluded) {
        int own = ownExcluded ? ownCalls.get()[0] : 0;
        if (own == 0) {
            ownCalls.remove();
        }
        Drain drain = new Drain(own, new CompletableFuture<>());
        drains.add(drain);
        drained();
        return drain.done()
                .completeOnTimeout(false, within.toNanos(), TimeUnit.NANOSECONDS)
                .thenApply(ended -> {
                    drains.remove(drain);
                    if (!ended) {
                        log.warn(
                                "Leadership '{}': {} @LeaderOnly calls still running; stepping down anyway",
                                name,
                                inFlight.get() - own);
                    }
                    return ended;
                });
    }

    /**
     * Steps down without a thread waiting: no new call is admitted from now on, the calls in flight end (at most one
     * lease; the caller's own not awaited if {@code ownExcluded}), then lock-core's step-down releases the lease and
     * keeps this instance out for the rest of {@code coolDown}. Completes once released.
     */
    CompletableFuture<Void> yieldAsync(Duration coolDown, boolean ownExcluded) {
        yielding.incrementAndGet(); // no call is admitted from here; lock-core's step-down keeps it out after
        CompletableFuture<Boolean> calls =
                isLeader() ? callsEnded(leaseDuration, ownExcluded) : CompletableFuture.completedFuture(true);
        return calls.thenCompose(ended -> {
                    Leadership running = election;
                    log.info("Leadership '{}': stepping down, staying out of the election for {}", name, coolDown);
                    return running == null
                            ? CompletableFuture.<Void>completedFuture(null)
                            : running.stepDownAsync(coolDown);
                })
                .whenComplete((ignored, error) -> yielding.decrementAndGet());
    }

    /** First step of a stop, at once: no call is admitted any more. */
    void closeGate() {
        accepting = false;
    }

    /**
     * Stops without a thread waiting: once the calls in flight have ended (at most {@code callsWait}), the election
     * ends, releasing the lease. Completes once it has.
     */
    CompletableFuture<Void> stopAsync(Duration callsWait) {
        return callsEnded(callsWait, false)
                .thenCompose(ended -> {
                    stopRequested = true;
                    Leadership running = election;
                    return running == null ? CompletableFuture.completedFuture(null) : running.stopAsync();
                })
                .handle((ignored, error) -> null); // ended on an error before the stop: stopped all the same
    }

    /** A term started, on the table's event thread (lock-core's state changed before): tells the application. */
    @Override
    public void onTermStarted(Lease lease) {
        lastTerm = lease;
        sighting.set(null); // whoever led before this term does no more
        terms.incrementAndGet();
        log.info("Leadership '{}': {} leads (fencing token {})", name, holder(), lease.fencingToken());
        events.publish(new LeadershipGrantedEvent(events.source(), name, lease));
    }

    /** The term ended, on the table's event thread (lock-core's state changed before): tells the application. */
    @Override
    public void onTermEnded(Lease lease) {
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
