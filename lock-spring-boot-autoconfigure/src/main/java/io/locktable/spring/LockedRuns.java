package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the calls of {@link LockedRun} methods, each under a lock of its own in a {@link LockTable}, and keeps what
 * the endpoint, the meters and the events tell about them. The auto-configuration registers it when the context has
 * a single lock table.
 *
 * <pre>{@code
 * lockedRuns.running();                // the runs whose body runs now on this instance
 * lockedRuns.skipped("hourly-report"); // calls skipped since startup
 * }</pre>
 *
 * <p><b>A run.</b> On the caller's thread: {@link LockTable#tryAcquire}, then the body with the lease bound as {@link
 * Lease#current()}, then the release, on the same thread, unless the run's {@link LockedRun#minHold()} has not
 * passed: the lease is then released from this component's timer thread {@code locktable-run-hold} once it has, and
 * renews itself until then. The caller never waits for a hold.
 *
 * <p><b>Losses.</b> The lock table ends a lease it loses on its own event thread; this component then interrupts the
 * run's thread when the method asks for it ({@link LockedRun#interruptOnLoss()}), and publishes a {@link
 * LockedRunLostEvent}. An interrupt it caused is cleared when the run ends, so it never reaches the caller's next
 * task.
 *
 * <p><b>Events.</b> {@link LockedRunStartedEvent}, {@link LockedRunLostEvent}, {@link LockedRunEndedEvent} and
 * {@link LockedRunSkippedEvent}, delivered in order on the thread {@code locktable-events}, never on a run's
 * thread.
 *
 * <p><b>Lifecycle.</b> A {@link SmartLifecycle} of the phase {@link LeaderRunner#PHASE}: it stops after the task
 * schedulers, which let their calls in flight finish. Then it starts no new run (calls are skipped with {@link
 * LockedRunSkippedEvent.Reason#STOPPED}), waits for the runs still in flight (at most the shutdown timeout), and
 * releases at once the locks kept for their minimum hold: a {@code minHold} does not outlast the application.
 *
 * <p>Thread-safe.
 */
public final class LockedRuns implements SmartLifecycle, ApplicationEventPublisherAware {

    private static final Logger log = LoggerFactory.getLogger(LockedRun.class);
    private static final Duration EVENTS_FLUSH = Duration.ofSeconds(5);

    private final LockTable locks;
    private final Duration shutdownTimeout;
    private final EventThread events = new EventThread(this);
    private final ConcurrentSkipListMap<String, PerName> names = new ConcurrentSkipListMap<>();
    private final Set<Run> running = ConcurrentHashMap.newKeySet();
    private final Object idle = new Object();
    private volatile ScheduledThreadPoolExecutor holds = newHolds();
    private volatile boolean accepting = true;
    private volatile boolean started;

    /**
     * Creates the runs of a lock table, whose stop waits at most {@link LeaderRunner#DEFAULT_SHUTDOWN_TIMEOUT} for
     * the runs in flight.
     *
     * @param locks the lock table
     */
    public LockedRuns(LockTable locks) {
        this(locks, LeaderRunner.DEFAULT_SHUTDOWN_TIMEOUT);
    }

    /**
     * Creates the runs of a lock table.
     *
     * @param locks the lock table
     * @param shutdownTimeout how long a stop waits at most for the runs in flight
     * @throws IllegalArgumentException if the timeout is negative
     */
    public LockedRuns(LockTable locks, Duration shutdownTimeout) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout must not be negative, was " + shutdownTimeout);
        }
        events.start();
    }

    /** The timer of the holds: one daemon thread, created at the first hold. */
    private static ScheduledThreadPoolExecutor newHolds() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "locktable-run-hold");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return timer;
    }

    /**
     * The runs whose body runs now on this instance. Runs that ended and keep their lock for their minimum hold are
     * not among them; their leases are among the lock table's {@link LockTable#heldLeases()}.
     *
     * @return a snapshot, sorted by name, then by start
     */
    public List<LockedRunStatus> running() {
        List<LockedRunStatus> all = new ArrayList<>();
        for (Run run : running) {
            all.add(new LockedRunStatus(run.name(), run.lease.fencingToken(), run.startedAt));
        }
        all.sort(Comparator.comparing(LockedRunStatus::name).thenComparing(LockedRunStatus::startedAt));
        return all;
    }

    /**
     * The names of the locks of the {@link LockedRun} methods: those found at startup, and those first met at a call.
     *
     * @return an unmodifiable snapshot, sorted
     */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(names.keySet()));
    }

    /**
     * How many calls of a lock were skipped since this component was created, for any reason. A monotonic count,
     * for a meter such as {@code locktable.run.skipped}.
     *
     * @param name the name of the lock
     * @return the number of skipped calls, 0 for a name never used
     */
    public long skipped(String name) {
        PerName perName = names.get(name);
        return perName == null ? 0 : perName.skipped.sum();
    }

    /**
     * The lock table the runs take their locks in.
     *
     * @return the lock table
     */
    public LockTable lockTable() {
        return locks;
    }

    /** Notes the name of a {@link LockedRun} method, found at startup. */
    void register(String name) {
        names.computeIfAbsent(name, n -> new PerName());
    }

    /**
     * Runs one call: takes the lock, runs the body with the lease bound, releases (or holds) the lock. Returns what
     * the body returned, or what a skipped call returns.
     */
    Object call(AnnotatedMethods.Declared target, Method method, Callable<Object> body) throws Exception {
        PerName perName = names.computeIfAbsent(target.name(), n -> new PerName());
        if (!accepting) {
            return skip(target, method, perName, LockedRunSkippedEvent.Reason.STOPPED);
        }
        Optional<Lease> acquired;
        try {
            acquired = locks.tryAcquire(target.name(), target.leaseDuration());
        } catch (RuntimeException e) {
            perName.failed(target, locks.tableName(), e);
            return skip(target, method, perName, LockedRunSkippedEvent.Reason.ERROR);
        }
        perName.answered(target);
        if (acquired.isEmpty()) {
            return skip(target, method, perName, LockedRunSkippedEvent.Reason.BUSY);
        }
        Lease lease = acquired.get();
        if (!lease.isHeld()) {
            log.debug("Skipped {}: the acquire of '{}' was answered after a whole lease", target.method(), lease);
            lease.release(); // writes nothing for a lease that ended
            return skip(target, method, perName, LockedRunSkippedEvent.Reason.ERROR);
        }
        Run run = new Run(target, lease, Thread.currentThread());
        running.add(run);
        events.publish(new LockedRunStartedEvent(this, target.name(), lease));
        lease.whenEnded().thenAccept(run::leaseEnded);
        Throwable failure = null;
        try {
            return lease.callAsCurrent(body);
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        } finally {
            finish(run, failure);
        }
    }

    private Object skip(
            AnnotatedMethods.Declared target, Method method, PerName perName, LockedRunSkippedEvent.Reason reason) {
        perName.skipped.increment();
        log.debug("Skipped {}: {}", target.method(), reason);
        events.publish(new LockedRunSkippedEvent(this, target.name(), reason));
        return LockAnnotationInterceptor.skipped(method);
    }

    /** After the body: ends the run, tells how it went, and releases the lock now or at the end of its hold. */
    private void finish(Run run, Throwable failure) {
        boolean lost = run.finish();
        Duration took = Duration.ofNanos(System.nanoTime() - run.startedNanos);
        running.remove(run);
        synchronized (idle) {
            idle.notifyAll();
        }
        if (!lost) {
            long holdLeft = run.target.minHold().toNanos() - (System.nanoTime() - run.startedNanos);
            if (holdLeft > 0 && holdUntilLater(run.lease, holdLeft)) {
                log.debug("{}: keeps '{}' for {} ms more", run.target.method(), run.name(), holdLeft / 1_000_000);
            } else {
                run.lease.release();
            }
        }
        LockedRunEndedEvent.Outcome outcome = lost
                ? LockedRunEndedEvent.Outcome.LOST
                : failure != null ? LockedRunEndedEvent.Outcome.FAILED : LockedRunEndedEvent.Outcome.COMPLETED;
        events.publish(new LockedRunEndedEvent(this, run.name(), run.lease, outcome, took, failure));
    }

    /** Releases a lease from the timer thread later; false when the timer is stopped (the caller releases now). */
    private boolean holdUntilLater(Lease lease, long nanos) {
        try {
            holds.schedule(lease::release, nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Starts admitting runs again after a stop, and the event thread. Called by the application context. */
    @Override
    public synchronized void start() {
        if (holds.isShutdown()) {
            holds = newHolds();
        }
        events.start();
        accepting = true;
        started = true;
    }

    /**
     * Starts no new run, waits for the runs in flight (at most the shutdown timeout), releases the locks kept for
     * their minimum hold, and delivers the events published so far. Called by the application context.
     */
    @Override
    public synchronized void stop() {
        accepting = false;
        started = false;
        long deadline = System.nanoTime() + shutdownTimeout.toNanos();
        synchronized (idle) {
            while (!running.isEmpty() && deadline - System.nanoTime() > 0) {
                try {
                    idle.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (!running.isEmpty()) {
            log.warn(
                    "{} @LockedRun runs still running after {}; their locks are released when they end or when the"
                            + " lock table closes",
                    running.size(),
                    shutdownTimeout);
        }
        List<Runnable> held = holds.shutdownNow();
        if (!held.isEmpty()) {
            log.info(
                    "Releasing {} @LockedRun locks before the end of their minHold: the application stops",
                    held.size());
        }
        held.forEach(Runnable::run);
        events.stop(EVENTS_FLUSH);
    }

    /**
     * Tells whether it admits runs.
     *
     * @return true between {@link #start()} and {@link #stop()}
     */
    @Override
    public boolean isRunning() {
        return started;
    }

    /**
     * The lifecycle phase, {@link LeaderRunner#PHASE}: it stops after the task schedulers.
     *
     * @return the phase
     */
    @Override
    public int getPhase() {
        return LeaderRunner.PHASE;
    }

    /**
     * Receives the publisher of the run events; called by the application context.
     *
     * @param publisher the publisher
     */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        events.publisher(publisher);
    }

    @Override
    public String toString() {
        return "LockedRuns[" + locks.tableName() + ", " + running.size() + " running]";
    }

    /** What is counted per lock name: skipped calls, and the acquires that failed in a row (for the log). */
    private static final class PerName {
        final LongAdder skipped = new LongAdder();
        final AtomicInteger failuresInRow = new AtomicInteger();

        /**
         * Logs a failed acquire: the first of a row as one WARN line with the cause and what to check (the SDK's
         * exception of an unreachable endpoint carries a stack with a suppressed exception per attempt, hundreds of
         * lines), its stack at DEBUG; the later ones of the row at DEBUG.
         */
        void failed(AnnotatedMethods.Declared target, String table, RuntimeException error) {
            if (failuresInRow.incrementAndGet() == 1) {
                log.warn(
                        "@LockedRun '{}' ({}): could not take the lock in table '{}', the call is skipped: {}. Check"
                                + " that DynamoDB answers at the client's endpoint and region, and the client's"
                                + " credentials and permissions; later failures of a row are logged at DEBUG",
                        target.name(),
                        target.method(),
                        table,
                        oneLine(error));
                log.debug("@LockedRun '{}': the failed acquire", target.name(), error);
            } else {
                log.debug(
                        "@LockedRun '{}' failed again ({} in a row): {}",
                        target.name(),
                        failuresInRow,
                        error.toString());
            }
        }

        /** An exception as one line: its type and message, line breaks folded. */
        private static String oneLine(Throwable error) {
            return error.toString().replaceAll("\\s*\\R\\s*", " ");
        }

        void answered(AnnotatedMethods.Declared target) {
            int failures = failuresInRow.getAndSet(0);
            if (failures > 0) {
                log.info(
                        "@LockedRun '{}': the lock table answers again after {} failed acquires",
                        target.name(),
                        failures);
            }
        }
    }

    /** A run whose body runs: the lease, the thread, and whether its lease was lost and its thread interrupted. */
    private final class Run {
        final AnnotatedMethods.Declared target;
        final Lease lease;
        final Thread thread;
        final Instant startedAt = Instant.now();
        final long startedNanos = System.nanoTime();
        private boolean finished; // guarded by this
        private boolean lost; // guarded by this
        private boolean interrupted; // guarded by this

        Run(AnnotatedMethods.Declared target, Lease lease, Thread thread) {
            this.target = target;
            this.lease = lease;
            this.thread = thread;
        }

        String name() {
            return target.name();
        }

        /** On the lock table's event thread for a loss, on the run's thread for a release of its own. */
        synchronized void leaseEnded(LeaseEnd end) {
            if (finished || end == LeaseEnd.RELEASED) {
                return; // released by the run itself or after it: not a loss
            }
            lost(end);
        }

        private void lost(LeaseEnd end) {
            lost = true;
            log.warn(
                    "@LockedRun '{}' ({}) lost its lease while running ({}){}",
                    target.name(),
                    target.method(),
                    end,
                    target.interruptOnLoss() ? "; interrupting it" : "");
            events.publish(new LockedRunLostEvent(LockedRuns.this, target.name(), lease, end));
            if (target.interruptOnLoss() && !finished) {
                interrupted = true;
                thread.interrupt();
            }
        }

        /**
         * Marks the run finished, on its thread; returns whether its lease was lost while it ran. A lease that ended
         * before its loss was heard (it ran out, and the table's event has not come yet) counts as lost now.
         */
        synchronized boolean finish() {
            finished = true;
            if (!lost && !lease.isHeld() && lease.end().orElse(LeaseEnd.EXPIRED) != LeaseEnd.RELEASED) {
                lost(lease.end().orElse(LeaseEnd.EXPIRED));
            }
            if (interrupted) {
                Thread.interrupted(); // the interrupt was ours: it must not reach the caller's next task
            }
            return lost;
        }
    }
}
