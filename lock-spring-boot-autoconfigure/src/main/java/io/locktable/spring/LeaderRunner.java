package io.locktable.spring;

import io.locktable.Lease;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Keeps one leadership per name used by a {@link LeaderOnly} method: this instance contends for the lock of the
 * name in the {@link LockTable}, leads while it holds it, and contends again when it loses it. The
 * auto-configuration registers it (unless {@code locktable.leader.enabled=false} or the context has its own).
 *
 * <pre>{@code
 * if (runner.isLeader("order-sweeper")) {
 *     ...
 * }
 * runner.lease("order-sweeper").ifPresent(lease -> log.info("term {}", lease.fencingToken()));
 * }</pre>
 *
 * <p><b>Threads.</b> Each name has an election, lock-core's {@link LockTable#lead(String, Duration,
 * io.locktable.LeaderTermListener)}, which contends, holds the term's lease and contends again as tasks on the lock
 * table's timer and workers (no thread per name); its term listener only marks the state at each term's start and
 * end, on the table's event thread, so no user code ever runs there. {@code @LeaderOnly} calls run on the caller's thread with the lease bound as {@link Lease#current()}, and the
 * events on the thread {@code locktable-events}. Steps down ({@link #yieldAsync(String)}) and the stop
 * wait on the runner's own small pool of threads {@code locktable-stepdown-<n>}, never on a shared pool.
 *
 * <p><b>Lifecycle.</b> A {@link SmartLifecycle} of phase {@link #PHASE}, below the phase of Spring's task
 * executors and schedulers ({@code Integer.MAX_VALUE / 2}) and of the web server. It starts contending when the
 * context has refreshed, so the first {@code @Scheduled} calls may be skipped until a leader is elected. When the
 * context closes, the scheduler and the web server stop first (phases stop from the highest down), which lets
 * their calls in flight finish; then this runner stops admitting calls and, for every name at once, waits for the
 * calls still in flight and releases the lease, so another instance takes over at its next poll (a third of the
 * lease, at most 10 s) instead of after a whole lease. The whole stop takes at most the shutdown timeout ({@code
 * locktable.leader.shutdown-timeout}); it runs on the runner's own threads {@code locktable-stepdown-<n>} and tells the
 * context when it is done, so other beans of the phase stop meanwhile.
 *
 * <p><b>Errors.</b> The election never gives up: an acquire that fails is retried (see {@link
 * LockTable#runAsLeader}); any other failure is logged, reported in {@link #status(String)}, and the name is
 * contended for again a lease later. Transient errors reach {@link #status(String)} through this runner's {@link
 * LockTableListener} side, which the auto-configured {@link LockTable} calls (it forwards to every {@code
 * LockTableListener} bean).
 *
 * <p>Thread-safe.
 */
public final class LeaderRunner implements SmartLifecycle, ApplicationEventPublisherAware, LockTableListener {

    /**
     * The lifecycle phase: below {@link ExecutorConfigurationSupport#DEFAULT_PHASE}, so this runner starts before
     * and stops after the task schedulers, and below the web server's phases, so requests in flight finish first.
     */
    public static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE - 1024;

    /** The default bound of a stop: below Spring Boot's default timeout of a shutdown phase, 30 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);
    private static final Duration RELEASE_SHARE = Duration.ofSeconds(2);
    private static final Duration EVENTS_FLUSH = Duration.ofSeconds(5);
    private static final int MAX_WORKERS = 8;

    private final LockTable locks;
    private final Duration shutdownTimeout;
    private final EventThread events = new EventThread(this);
    private final ConcurrentSkipListMap<String, LeadershipGate> leaderships = new ConcurrentSkipListMap<>();
    private final Object lifecycle = new Object();
    private final AtomicInteger workerNumbers = new AtomicInteger();
    private volatile boolean running;
    private @Nullable ThreadPoolExecutor workers; // guarded by lifecycle

    /**
     * Creates a runner that leads on the locks of a table, whose stop takes at most {@link
     * #DEFAULT_SHUTDOWN_TIMEOUT}. It leads the names that the {@link LeaderOnly} methods of the context use; declare
     * a bean of your own only to lead on another {@link LockTable}.
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
     * Tells whether this instance leads a name now: it holds the lease, which has not ended.
     *
     * @param name the name of the leadership
     * @return true while this instance leads it; false for a name this runner does not lead
     */
    public boolean isLeader(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership != null && leadership.isLeader();
    }

    /**
     * The lease of the current term, for fencing: writes checked with its {@link Lease#heldCheck()} or {@link
     * Lease#fencingToken()} are refused once another instance leads.
     *
     * @param name the name of the leadership
     * @return the lease while this instance leads the name, otherwise empty
     */
    public Optional<Lease> lease(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? Optional.empty() : leadership.lease();
    }

    /**
     * The names this runner leads or contends for: those of the {@link LeaderOnly} methods found at startup, and
     * those first met at a call later.
     *
     * @return an unmodifiable snapshot, sorted
     */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(leaderships.keySet()));
    }

    /**
     * Steps down from a leadership so that another instance takes it: no new call of the name is admitted, the
     * calls in flight on other threads finish (waiting at most one lease), the lease is released, and this
     * instance stays out of the election for a cool-down of two leases. Returns once the lease is released. On an
     * instance that does not lead, it only keeps this instance out for the cool-down. It may be called from inside
     * a {@link LeaderOnly} call of the same name; that call runs on to its end.
     *
     * @param name the name of the leadership
     * @throws IllegalArgumentException if this runner has no leadership of that name
     */
    public void yield(String name) {
        LeadershipGate leadership = leadership(name);
        leadership.yieldFor(leadership.leaseDuration().multipliedBy(2));
    }

    /**
     * Steps down like {@link #yield(String)}, without blocking the caller: no new call of the name is admitted from
     * the moment it returns; waiting for the calls in flight and releasing the lease happen on the runner's own
     * threads. Called from inside a {@link LeaderOnly} call of the same name, the step-down completes after that
     * call ended.
     *
     * @param name the name of the leadership
     * @return a stage that completes once the lease is released (or this instance did not lead)
     * @throws IllegalArgumentException if this runner has no leadership of that name
     */
    public CompletionStage<Void> yieldAsync(String name) {
        LeadershipGate leadership = leadership(name);
        Lease lease = leadership.beginYield(leadership.leaseDuration().multipliedBy(2));
        return CompletableFuture.runAsync(() -> leadership.finishYield(lease), workers());
    }

    private LeadershipGate leadership(String name) {
        LeadershipGate leadership = leaderships.get(name);
        if (leadership == null) {
            throw new IllegalArgumentException("no leadership named '" + name + "'; the names are " + names());
        }
        return leadership;
    }

    /**
     * A read-only snapshot of a leadership: its state, how many terms this instance won, and its last error.
     *
     * @param name the name of the leadership
     * @return the status, or empty for a name this runner does not lead
     */
    public Optional<LeadershipStatus> status(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? Optional.empty() : Optional.of(leadership.status());
    }

    /**
     * How many {@link LeaderOnly} calls of a name were skipped because this instance did not lead it (or was
     * stepping down), since the runner was created. A monotonic count, for a meter such as {@code
     * locktable.leader.skipped}.
     *
     * @param name the name of the leadership
     * @return the number of skipped calls, 0 for a name this runner does not lead
     */
    public long skipped(String name) {
        LeadershipGate leadership = leaderships.get(name);
        return leadership == null ? 0 : leadership.skipped();
    }

    /**
     * The lock table this runner leads on.
     *
     * @return the lock table
     */
    public LockTable lockTable() {
        return locks;
    }

    /**
     * Starts contending for every name registered so far; names registered later start at once. Called by the
     * application context.
     */
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

    /**
     * Stops every leadership and returns when done, or after the shutdown timeout: see {@link #stop(Runnable)}.
     */
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
     * parallel, on the runner's own threads, waits for the calls in flight and releases the lease, so another
     * instance takes over at its next poll. Calls {@code callback} when every lease is released, or when the
     * shutdown timeout has passed (a lease still held then is released when the lock table closes). Called by the
     * application context when it closes.
     *
     * @param callback what to run once stopped
     */
    @Override
    public void stop(Runnable callback) {
        List<LeadershipGate> all;
        ExecutorService pool;
        synchronized (lifecycle) {
            if (!running) {
                callback.run();
                return;
            }
            running = false;
            all = new ArrayList<>(leaderships.values());
            pool = workers();
            workers = null; // a later start() gets a pool of its own
        }
        long start = System.nanoTime();
        long deadline = start + shutdownTimeout.toNanos();
        // the calls may take the timeout but a share kept for the releases
        long callsDeadline = deadline - Math.min(RELEASE_SHARE.toNanos(), shutdownTimeout.toNanos() / 2);
        all.forEach(LeadershipGate::closeGate);
        CompletableFuture<?>[] steps = all.stream()
                .map(leadership ->
                        CompletableFuture.runAsync(() -> stepDown(leadership, callsDeadline, deadline), pool))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(steps).whenComplete((ignored, error) -> {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                events.stop(Duration.ofNanos(Math.min(left, EVENTS_FLUSH.toNanos())));
                pool.shutdown();
                log.info(
                        "Leader runner stopped on table '{}' in {} ms",
                        locks.tableName(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } finally {
                callback.run();
            }
        });
    }

    /** One name's part of a stop: waits for its calls in flight, then ends its election, releasing the lease. */
    private void stepDown(LeadershipGate leadership, long callsDeadline, long deadline) {
        leadership.awaitCalls(callsDeadline);
        leadership.requestStop();
        if (!leadership.awaitStopped(deadline)) {
            log.warn(
                    "Leadership '{}' did not stop within {}; closing the lock table releases it",
                    leadership.name(),
                    shutdownTimeout);
        }
    }

    /** The runner's own pool for stops and steps down: daemon threads, created on demand, never a shared pool. */
    private ExecutorService workers() {
        synchronized (lifecycle) {
            if (workers == null) {
                ThreadPoolExecutor pool = new ThreadPoolExecutor(
                        MAX_WORKERS, MAX_WORKERS, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
                            Thread thread = new Thread(task, "locktable-stepdown-" + workerNumbers.incrementAndGet());
                            thread.setDaemon(true);
                            return thread;
                        });
                pool.allowCoreThreadTimeOut(true);
                workers = pool;
            }
            return workers;
        }
    }

    /**
     * Tells whether the runner contends for its names.
     *
     * @return true between {@link #start()} and a stop
     */
    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * The lifecycle phase, {@link #PHASE}.
     *
     * @return the phase
     */
    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Receives the publisher of the leadership events; called by the application context.
     *
     * @param publisher the publisher
     */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        events.publisher(publisher);
    }

    /**
     * Records a failed acquire of one of this runner's leaderships for {@link #status(String)}.
     *
     * @param name the lock
     * @param error the error
     * @param failuresInRow how many acquires failed in a row
     */
    @Override
    public void onLeadershipError(String name, Exception error, int failuresInRow) {
        LeadershipGate leadership = leaderships.get(name);
        if (leadership != null) {
            leadership.recordFailure(error);
        }
    }

    /**
     * Records a failed renewal of the lease of one of this runner's terms for {@link #status(String)}.
     *
     * @param lease the lease
     * @param error the error
     */
    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        LeadershipGate leadership = leaderships.get(lease.name());
        if (leadership != null && leadership.holds(lease)) {
            leadership.recordFailure(error);
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
