package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Keeps one leadership per name used by a {@link LeaderOnly} method: this instance contends for the name's lock in
 * the {@link LockTable} (lock-core's {@link LockTable#lead}, which contends again after a loss or, a lease later, after
 * an error), and admits the name's calls while it leads. The auto-configuration registers it (unless {@code
 * locktable.leader.enabled=false} or the context has its own).
 *
 * <pre>{@code
 * if (runner.isLeader("order-sweeper")) {
 *     ...
 * }
 * runner.lease("order-sweeper").ifPresent(lease -> log.info("term {}", lease.fencingToken()));
 * }</pre>
 *
 * <p>The elections are tasks on the lock table's threads; {@code @LeaderOnly} calls run on the caller's thread with
 * the lease bound as {@link Lease#current()}; events are published on the thread {@code locktable-events}, after the
 * state changed. A {@link SmartLifecycle} of phase {@link #PHASE}: it starts contending once the context refreshed
 * (the first {@code @Scheduled} calls may be skipped until a leader is elected) and stops after the schedulers and
 * the web server, so their calls in flight finish first; then it admits no call and, for every name at once, waits
 * for the calls still in flight (no thread waits) and releases the lease, so another instance takes over at its next
 * poll; all within {@code locktable.leader.shutdown-timeout}. Errors are logged and reported in {@link
 * #status(String)}. Thread-safe.
 */
public final class LeaderRunner implements SmartLifecycle, ApplicationEventPublisherAware, LockTableListener {

    /**
     * The lifecycle phase: below {@link ExecutorConfigurationSupport#DEFAULT_PHASE} and the web server's phases, so
     * this runner starts before and stops after the task schedulers and the requests in flight.
     */
    public static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE - 1024;

    /** The default bound of a stop: below Spring Boot's default timeout of a shutdown phase, 30 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);
    private static final Duration RELEASE_SHARE = Duration.ofSeconds(2);

    private final LockTable locks;
    private final Duration shutdownTimeout;
    private final EventThread events = new EventThread(this);
    private final ConcurrentSkipListMap<String, LeadershipGate> leaderships = new ConcurrentSkipListMap<>();
    private final Object lifecycle = new Object();
    private volatile boolean running;

    /**
     * Creates a runner that leads on the locks of a table, whose stop takes at most {@link
     * #DEFAULT_SHUTDOWN_TIMEOUT}. It leads the names of the context's {@link LeaderOnly} methods; declare a bean of
     * your own only to lead on another {@link LockTable}.
     *
     * @param locks the lock table
     */
    public LeaderRunner(LockTable locks) {
        this(locks, DEFAULT_SHUTDOWN_TIMEOUT);
    }

    /**
     * Creates a runner that leads on the locks of a table.
     *
     * @param locks the lock table
     * @param shutdownTimeout how long a stop may take at most: waiting for the calls in flight, then releasing the
     *     leases (a lease not released by then is released when the lock table closes)
     * @throws IllegalArgumentException if the timeout is negative
     */
    public LeaderRunner(LockTable locks, Duration shutdownTimeout) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout must not be negative, was " + shutdownTimeout);
        }
    }

    /**
     * {@return true while this instance leads the name: it holds the lease; false for a name this runner does not
     * lead}
     *
     * @param name the name of the leadership
     */
    public boolean isLeader(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership != null && leadership.isLeader();
    }

    /**
     * {@return the lease of the name's current term while this instance leads it, to fence writes with its {@link
     * Lease#heldCheck()} or {@link Lease#fencingToken()}; otherwise empty}
     *
     * @param name the name of the leadership
     */
    public Optional<Lease> lease(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? Optional.empty() : leadership.lease();
    }

    /**
     * {@return the names this runner leads or contends for, sorted, unmodifiable: those of the {@link LeaderOnly}
     * methods found at startup, and those first met at a call later}
     */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(leaderships.keySet()));
    }

    /**
     * Steps down from a leadership so that another instance takes it: no new call of the name is admitted, the
     * calls in flight on other threads finish (waiting at most one lease), the lease is released, and this instance
     * stays out of the election for two leases. Returns once the lease is released. On an instance that does not
     * lead, it only keeps it out. It may be called from inside a {@link LeaderOnly} call of the same name.
     *
     * @param name the name of the leadership
     * @throws IllegalArgumentException if this runner has no leadership of that name
     */
    public void yield(String name) {
        stepDown(name, true).join();
    }

    /**
     * Steps down like {@link #yield(String)}, without blocking the caller: no new call of the name is admitted from
     * the moment it returns. Called from inside a {@link LeaderOnly} call of the same name, the step-down completes
     * after that call ended.
     *
     * @param name the name of the leadership
     * @return a stage that completes once the lease is released (or this instance did not lead)
     * @throws IllegalArgumentException if this runner has no leadership of that name
     */
    public CompletionStage<Void> yieldAsync(String name) {
        return stepDown(name, false);
    }

    private CompletableFuture<Void> stepDown(String name, boolean ownCallExcluded) {
        LeadershipGate leadership = leaderships.get(name);
        if (leadership == null) {
            throw new IllegalArgumentException("no leadership named '" + name + "'; the names are " + names());
        }
        return leadership.yieldAsync(leadership.leaseDuration().multipliedBy(2), ownCallExcluded);
    }

    /**
     * {@return a snapshot of a leadership: its state, the terms this instance won, its last error; empty for a name
     * this runner does not lead}
     *
     * @param name the name of the leadership
     */
    public Optional<LeadershipStatus> status(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? Optional.empty() : Optional.of(leadership.status());
    }

    /**
     * {@return who leads a name, as this instance last knew it: itself while it leads; otherwise the holder that the
     * item showed at this instance's last poll (a follower reads it every third of the holder's lease, at most every
     * 10 s); empty for a name this runner does not lead, or before any read showed a holder}
     *
     * @param name the name of the leadership
     */
    public Optional<CurrentLeader> leader(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? Optional.empty() : leadership.leader();
    }

    /**
     * {@return how many {@link LeaderOnly} calls of a name were skipped since the runner was created, because this
     * instance did not lead it or was stepping down (the meter {@code locktable.leader.skipped})}
     *
     * @param name the name of the leadership
     */
    public long skipped(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? 0 : leadership.skipped();
    }

    /** {@return the lock table this runner leads on} */
    public LockTable lockTable() {
        return locks;
    }

    /** Starts contending for every name registered so far; names registered later start at once. */
    @Override
    public void start() {
        synchronized (lifecycle) {
            if (running) {
                return;
            }
            events.start();
            running = true;
            leaderships.values().forEach(LeadershipGate::start);
            log.info("Leader runner started on table '{}' for {}", locks.tableName(), names());
        }
    }

    /** Stops every leadership as {@link #stop(Runnable)} does, and returns when done or after the shutdown timeout. */
    @Override
    public void stop() {
        CountDownLatch done = new CountDownLatch(1);
        stop(done::countDown);
        try {
            if (!done.await(shutdownTimeout.plus(RELEASE_SHARE).toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("Leader runner did not stop within {}", shutdownTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops every leadership without blocking the caller: admits no new call at once, then for every name in
     * parallel, once its calls in flight ended, releases the lease, so another instance takes over at its next poll.
     * Calls {@code callback} when every lease is released, or once the shutdown timeout has passed (a lease still
     * held then is released when the lock table closes).
     *
     * @param callback what to run once stopped
     */
    @Override
    public void stop(Runnable callback) {
        List<LeadershipGate> all;
        synchronized (lifecycle) {
            if (!running) {
                callback.run();
                return;
            }
            running = false;
            all = new ArrayList<>(leaderships.values());
        }
        long start = System.nanoTime();
        // the calls may take the timeout but a share kept for the releases
        Duration callsWait = shutdownTimeout.minus(min(RELEASE_SHARE, shutdownTimeout.dividedBy(2)));
        all.forEach(LeadershipGate::closeGate);
        List<CompletableFuture<Void>> steps =
                all.stream().map(leadership -> leadership.stopAsync(callsWait)).toList();
        CompletableFuture.allOf(steps.toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, shutdownTimeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((ignored, error) -> {
                    for (int i = 0; i < all.size(); i++) {
                        if (!steps.get(i).isDone()) {
                            log.warn(
                                    "Leadership '{}' did not stop within {}; closing the lock table releases it",
                                    all.get(i).name(),
                                    shutdownTimeout);
                        }
                    }
                    Duration left = shutdownTimeout.minusNanos(System.nanoTime() - start);
                    events.stopAsync(min(left.isNegative() ? Duration.ZERO : left, EventThread.FLUSH))
                            .whenComplete((done, failure) -> {
                                log.info(
                                        "Leader runner stopped on table '{}' in {} ms",
                                        locks.tableName(),
                                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                                callback.run();
                            });
                });
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** {@return true between {@link #start()} and a stop: the runner contends for its names} */
    @Override
    public boolean isRunning() {
        return running;
    }

    /** {@return the lifecycle phase, {@link #PHASE}} */
    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Receives the publisher of the leadership events.
     *
     * @param publisher the publisher
     */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        events.publisher(publisher);
    }

    /** Notes the holder an acquire of one of this runner's names found in the item, for {@link #leader(String)}. */
    @Override
    public void onBusy(String name, LockRecord holder) {
        LeadershipGate leadership = leaderships.get(name);
        if (leadership != null) {
            leadership.saw(holder);
        }
    }

    /** Records a failed renewal of the lease of one of this runner's terms for {@link #status(String)}. */
    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        LeadershipGate leadership = leaderships.get(lease.name());
        if (leadership != null) {
            leadership.recordRenewalFailure(lease, error);
        }
    }

    @Override
    public String toString() {
        return "LeaderRunner[" + locks.tableName() + ", " + leaderships.values() + "]";
    }

    /** Adds a leadership if the name has none; starts it if the runner runs. Returns the name's leadership. */
    LeadershipGate register(String name, Duration leaseDuration) {
        LeadershipGate existing = leaderships.get(name);
        if (existing != null) {
            return existing;
        }
        LeadershipGate leadership =
                leaderships.computeIfAbsent(name, n -> new LeadershipGate(n, leaseDuration, locks, events));
        if (running) {
            leadership.start(); // idempotent; start() starts those registered before it set running
        }
        return leadership;
    }
}
