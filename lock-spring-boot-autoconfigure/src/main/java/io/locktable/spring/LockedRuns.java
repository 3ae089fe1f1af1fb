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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
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
 * <p><b>A run</b> is lock-core's {@link LockTable#runLocked}: on the caller's thread, the lock is taken with {@code
 * tryAcquire}, the body runs with the lease bound as {@link Lease#current()}, and the lease is released when it
 * ends, but not before the run's {@link LockedRun#minHold()}: the lock table then keeps it, renewed, and releases it
 * from its own timer (or when it closes, with the context). The caller never waits for a hold.
 *
 * <p><b>Losses.</b> The lock table ends a lease it loses on its own event thread; this component then interrupts the
 * run's thread when the method asks for it ({@link LockedRun#interruptOnLoss()}), and publishes a {@link
 * LockedRunEvent} of kind {@code LOST}. An interrupt it caused is cleared when the run ends, so it never reaches the
 * caller's next task.
 *
 * <p><b>Work that ends after the call returned</b> (a {@code CompletableFuture}, a {@code Mono}, a {@code Flux}, a
 * Kotlin suspend function; see {@link DeferredCalls}): the lock is asked for with {@code tryAcquireAsync} when the
 * method is called or its publisher subscribed, so that no thread waits for DynamoDB (a Reactor thread must not
 * block), and the work starts once the lock is taken; the run is among {@link #running()} until the work ends, its
 * release honours the minimum hold (from a timer), and a lost lease cancels the work instead of interrupting a
 * thread. A stop waits for such a run from its subscription (or call) on, its acquire included.
 *
 * <p><b>Events.</b> {@link LockedRunEvent}s of the kinds {@code STARTED}, {@code LOST}, {@code ENDED} and {@code
 * SKIPPED}, delivered in order on the thread {@code locktable-events}, never on a run's thread.
 *
 * <p><b>Lifecycle.</b> A {@link SmartLifecycle} of the phase {@link LeaderRunner#PHASE}: it stops after the task
 * schedulers, which let their calls in flight finish. Then it starts no new run (calls are skipped with {@link
 * LockedRunEvent.SkipReason#STOPPED}) and waits for the runs still in flight (at most the shutdown timeout). The
 * locks kept for their minimum hold are released when the lock table closes, with the context: a {@code minHold}
 * does not outlast the application.
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
    private final EvaluatedNames evaluated = new EvaluatedNames();
    private final Set<Run> running = ConcurrentHashMap.newKeySet();
    /** The acquires of {@link #hold} not answered yet: runs in flight that are not among {@link #running} yet. */
    private final AtomicInteger opening = new AtomicInteger();

    private final ReentrantLock lifecycle = new ReentrantLock();
    /** Signalled, under {@link #lifecycle}, when a run ends. */
    private final Condition runEnded = lifecycle.newCondition();

    private volatile LockedRunObserver observer = LockedRunObserver.NONE;
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

    /**
     * The runs whose body runs now on this instance. Runs that ended and keep their lock for their minimum hold are
     * not among them; their leases are among the lock table's {@link LockTable#heldLeases()}.
     *
     * @return a snapshot, sorted by name, then by start
     */
    public List<LockedRunStatus> running() {
        List<LockedRunStatus> all = new ArrayList<>();
        for (Run run : running) {
            all.add(new LockedRunStatus(run.name(), run.lease().fencingToken(), run.startedAt));
        }
        all.sort(Comparator.comparing(LockedRunStatus::name).thenComparing(LockedRunStatus::startedAt));
        return all;
    }

    /**
     * The names of the locks of the {@link LockedRun} methods: those found at startup, and those first met at a call.
     * A name with {@code #{...}} parts is here as declared, such as {@code report-#{#region}}, not as each call
     * evaluates it.
     *
     * @return an unmodifiable snapshot, sorted
     */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(names.keySet()));
    }

    /**
     * How many calls of a lock were skipped since this component was created, for any reason. A monotonic count,
     * for a meter such as {@code locktable.run.skipped}. The calls of a name with {@code #{...}} parts count under
     * the name as declared, such as {@code report-#{#region}}, whatever each evaluated to.
     *
     * @param name the name of the lock, as among {@link #names()}
     * @return the number of skipped calls, 0 for a name never used
     */
    public long skipped(String name) {
        PerName perName = names.get(name);
        return perName == null ? 0 : perName.skipped.sum();
    }

    /**
     * The name as declared of a lock that a {@link LockedRun} call took: for a name evaluated from a declared name
     * with {@code #{...}} parts, such as {@code report-eu} from {@code report-#{#region}}, that template, as long as
     * it is among the last {@value EvaluatedNames#LIMIT} names evaluated on this instance; else the name itself. The
     * meters tag a lock with it, so that a method makes as many series however many names its calls take.
     *
     * @param lockName the name of a lock
     * @return the template it was evaluated from, or the name itself
     */
    public String declaredName(String lockName) {
        String template = evaluated.template(lockName);
        return template != null ? template : lockName;
    }

    /**
     * The lock table the runs take their locks in.
     *
     * @return the lock table
     */
    public LockTable lockTable() {
        return locks;
    }

    /**
     * Sets what hears each call on its thread, such as the starter's observations of runs.
     *
     * @param observer the observer, {@link LockedRunObserver#NONE} for none
     */
    public void observer(LockedRunObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    /** Notes the name of a {@link LockedRun} method, found at startup. */
    void register(String name) {
        names.computeIfAbsent(name, n -> new PerName());
    }

    /**
     * Runs one call through {@link LockTable#runLocked} under the lock of the given name (the declared one, or the
     * one evaluated from its template), and tells how it went. Returns what the body returned, or what a skipped
     * call returns.
     */
    @Nullable
    Object call(AnnotatedMethods.Declared target, String name, Method method, Callable<Object> body) throws Exception {
        PerName perName = names.computeIfAbsent(target.name(), n -> new PerName());
        if (!name.equals(target.name())) {
            evaluated.note(name, target.name()); // before the acquire, whose events the meters tag
        }
        LockedRunObserver.Call observed = observer.started(name, target.name());
        if (!accepting) {
            return skip(target, name, method, perName, LockedRunEvent.SkipReason.STOPPED, observed);
        }
        Run run = new Run(target, name, perName, Thread.currentThread());
        Throwable failure = null;
        try {
            if (locks.runLocked(name, target.leaseDuration(), target.minHold(), () -> run.call(body))
                    .isEmpty()) {
                perName.answered(target);
                return skip(target, name, method, perName, LockedRunEvent.SkipReason.BUSY, observed);
            }
        } catch (RuntimeException e) {
            if (!run.started) { // the acquire failed: the body never ran
                perName.failed(target, name, locks.tableName(), e);
                return skip(target, name, method, perName, LockedRunEvent.SkipReason.ERROR, observed);
            }
            failure = e;
            throw e;
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        } finally {
            if (run.started) {
                ended(run, failure, observed); // after runLocked released the lease, or left it to its minHold
            } else if (failure != null) {
                observed.ended(LockedRunObserver.Outcome.FAILED, failure); // an Error before the body
            }
        }
        if (!run.started) {
            log.debug("Skipped {}: the acquire of '{}' was answered after a whole lease", target.method(), run.lease());
            return skip(target, name, method, perName, LockedRunEvent.SkipReason.ERROR, observed);
        }
        return run.result;
    }

    /**
     * Starts a run whose work ends after the call returned (a publisher, a future; see {@link DeferredCalls}): asks
     * for the lock with {@code tryAcquireAsync}, so the calling thread never waits for DynamoDB, and returns a future
     * of the run, which the caller ends when the work ends, and which is cancelled when its lease is lost. The future
     * completes with null when the call is skipped, counted and told as a blocking call's skip; it completes on the
     * thread that completes the acquire (the JDK's default asynchronous executor), or at once when skipped before
     * asking.
     *
     * <p>The run is in flight for {@link #stop()} from this call on, before its lock is taken. Cancelling the future
     * before it completed gives up the acquire: a lease it wins all the same is released (by lock-core, or here when
     * the acquire had completed already), the work is never started, and the call's observation ends as skipped,
     * with no event and no count: nothing was skipped for another instance or a failure.
     */
    CompletableFuture<@Nullable Held> hold(AnnotatedMethods.Declared target, String name, Method method) {
        PerName perName = names.computeIfAbsent(target.name(), n -> new PerName());
        if (!name.equals(target.name())) {
            evaluated.note(name, target.name());
        }
        LockedRunObserver.Call observed = observer.startedDeferred(name, target.name());
        opening.incrementAndGet(); // before reading accepting, which a stop clears before it reads this count
        if (!accepting) {
            opened();
            skip(target, name, method, perName, LockedRunEvent.SkipReason.STOPPED, observed);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Optional<Lease>> acquiring;
        try {
            acquiring = locks.tryAcquireAsync(name, target.leaseDuration());
        } catch (RuntimeException e) {
            opened();
            perName.failed(target, name, locks.tableName(), e);
            skip(target, name, method, perName, LockedRunEvent.SkipReason.ERROR, observed);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<@Nullable Held> result = new CompletableFuture<>();
        result.whenComplete((held, failure) -> {
            if (result.isCancelled()) {
                acquiring.cancel(true); // lock-core sends nothing more, and releases a lease it wins meanwhile
            }
        });
        acquiring.whenComplete((acquired, failure) -> {
            try {
                Held held = begin(target, name, method, perName, observed, acquired, failure, result);
                if (!result.complete(held) && held != null) {
                    held.end(new CancellationException("cancelled by its caller")); // as the lock was taken
                }
            } finally {
                opened(); // after the run is among the running ones, so a stop waiting for both never misses it
            }
        });
        return result;
    }

    /** Starts the run once its acquire is answered; null, the call told as skipped, when it does not run. */
    private @Nullable Held begin(
            AnnotatedMethods.Declared target,
            String name,
            Method method,
            PerName perName,
            LockedRunObserver.Call observed,
            @Nullable Optional<Lease> acquired,
            @Nullable Throwable failure,
            CompletableFuture<@Nullable Held> result) {
        if (result.isCancelled()) {
            if (acquired != null) {
                acquired.ifPresent(Lease::release); // won as its caller gave up: lock-core did not know
            }
            observed.ended(LockedRunObserver.Outcome.SKIPPED, null);
            return null;
        }
        if (failure != null || acquired == null) {
            Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            perName.failed(
                    target,
                    name,
                    locks.tableName(),
                    cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause));
            skip(target, name, method, perName, LockedRunEvent.SkipReason.ERROR, observed);
            return null;
        }
        if (acquired.isEmpty()) {
            perName.answered(target);
            skip(target, name, method, perName, LockedRunEvent.SkipReason.BUSY, observed);
            return null;
        }
        Run run = new Run(target, name, perName, null);
        run.observed = observed;
        if (!run.begin(acquired.get())) {
            acquired.get().release(); // answered after a whole lease: writes nothing
            skip(target, name, method, perName, LockedRunEvent.SkipReason.ERROR, observed);
            return null;
        }
        return run;
    }

    /** An acquire of {@link #hold} was answered, or given up: a stop may be waiting for it. */
    private void opened() {
        opening.decrementAndGet();
        lifecycle.lock();
        try {
            runEnded.signalAll();
        } finally {
            lifecycle.unlock();
        }
    }

    private @Nullable Object skip(
            AnnotatedMethods.Declared target,
            String name,
            Method method,
            PerName perName,
            LockedRunEvent.SkipReason reason,
            LockedRunObserver.Call observed) {
        perName.skipped.increment();
        log.debug("Skipped {} ('{}'): {}", target.method(), name, reason);
        events.publish(LockedRunEvent.skipped(this, name, reason));
        observed.ended(LockedRunObserver.Outcome.SKIPPED, null);
        return LockAnnotationInterceptor.skipped(method);
    }

    private void ended(Run run, @Nullable Throwable failure, LockedRunObserver.Call observed) {
        LockedRunEvent.Outcome outcome = run.lost
                ? LockedRunEvent.Outcome.LOST
                : failure != null ? LockedRunEvent.Outcome.FAILED : LockedRunEvent.Outcome.COMPLETED;
        events.publish(LockedRunEvent.ended(this, run.name(), run.lease(), outcome, run.took, failure));
        observed.ended(
                switch (outcome) {
                    case LOST -> LockedRunObserver.Outcome.LOST;
                    case FAILED -> LockedRunObserver.Outcome.FAILED;
                    case COMPLETED -> LockedRunObserver.Outcome.RAN;
                },
                failure);
    }

    /** Starts admitting runs again after a stop, and the events. Called by the application context. */
    @Override
    public void start() {
        lifecycle.lock();
        try {
            events.start();
            accepting = true;
            started = true;
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Starts no new run, waits for the runs in flight (at most the shutdown timeout), and delivers the events
     * published so far. Called by the application context.
     */
    @Override
    public void stop() {
        lifecycle.lock();
        try {
            accepting = false;
            started = false;
            long left = shutdownTimeout.toNanos();
            while ((!running.isEmpty() || opening.get() > 0) && left > 0) {
                left = runEnded.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lifecycle.unlock();
        }
        if (!running.isEmpty() || opening.get() > 0) {
            log.warn(
                    "{} @LockedRun runs still running after {}; their locks are released when they end or when the"
                            + " lock table closes",
                    running.size() + opening.get(),
                    shutdownTimeout);
        }
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
        void failed(AnnotatedMethods.Declared target, String name, String table, RuntimeException error) {
            if (failuresInRow.incrementAndGet() == 1) {
                log.warn(
                        "@LockedRun '{}' ({}): could not take the lock in table '{}', the call is skipped: {}. Check"
                                + " that DynamoDB answers at the client's endpoint and region, and the client's"
                                + " credentials and permissions; later failures of a row are logged at DEBUG",
                        name,
                        target.method(),
                        table,
                        oneLine(error));
                log.debug("@LockedRun '{}': the failed acquire", name, error);
            } else {
                log.debug("@LockedRun '{}' failed again ({} in a row): {}", name, failuresInRow, error.toString());
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

    /**
     * A run: on the caller's thread inside {@link LockTable#runLocked}, its lease, its body's result, and whether its
     * lease was lost and its thread interrupted. A run whose work ends after the call returned ({@link #hold}) has no
     * thread: it is {@link Held}, ended by its caller, and cancelled instead of interrupted.
     */
    private final class Run implements Held {
        final AnnotatedMethods.Declared target;
        /** The lock's name: the declared one, or the one this call evaluated. */
        final String name;

        final PerName perName;
        /** The run's thread; null for a run whose work ends after the call returned. */
        final @Nullable Thread thread;

        final Instant startedAt = Instant.now();
        final long startedNanos = System.nanoTime();
        private @Nullable Lease lease;
        /** Whether the body started; false when the lease ended before the acquire was answered. */
        volatile boolean started;

        @Nullable
        Object result;

        Duration took = Duration.ZERO;
        private boolean finished; // guarded by this
        private volatile boolean lost; // written under this
        private boolean interrupted; // guarded by this
        private @Nullable Runnable cancel; // guarded by this
        /** What hears the end of a run whose work ends after the call returned; a blocking call keeps its own. */
        LockedRunObserver.Call observed = LockedRunObserver.NONE_CALL;

        Run(AnnotatedMethods.Declared target, String name, PerName perName, @Nullable Thread thread) {
            this.target = target;
            this.name = name;
            this.perName = perName;
            this.thread = thread;
        }

        String name() {
            return name;
        }

        @Override
        public Lease lease() {
            return Objects.requireNonNull(lease, "lease");
        }

        /** The work given to {@code runLocked}: the body, with the lease bound. */
        Run call(Callable<Object> body) throws Exception {
            if (!begin(Lease.current().orElseThrow())) {
                return this; // answered after a whole lease: skipped, and runLocked's release writes nothing
            }
            try {
                result = body.call();
                return this;
            } finally {
                done();
            }
        }

        /** Starts the run under its lease; false, and nothing started, when the lease is no longer held. */
        boolean begin(Lease bound) {
            lease = bound;
            perName.answered(target);
            if (!bound.isHeld()) {
                return false;
            }
            started = true;
            running.add(this);
            events.publish(LockedRunEvent.started(LockedRuns.this, name(), bound));
            bound.whenEnded().thenAccept(this::leaseEnded);
            return true;
        }

        /** The body ended: the run is no longer running. */
        private void done() {
            finish();
            took = Duration.ofNanos(System.nanoTime() - startedNanos);
            running.remove(this);
            lifecycle.lock();
            try {
                runEnded.signalAll();
            } finally {
                lifecycle.unlock();
            }
        }

        /**
         * Ends a run whose work ended after the call returned: releases the lease as {@code runLocked} does, not before
         * the minimum hold (the lease renews meanwhile; the release is then made from the lock table's timer), and tells
         * the outcome.
         */
        @Override
        public void end(@Nullable Throwable failure) {
            done();
            lease().releaseAfter(target.minHold().minusNanos(System.nanoTime() - startedNanos));
            ended(this, failure, observed);
        }

        @Override
        public void onLoss(Runnable action) {
            boolean now;
            synchronized (this) {
                cancel = action;
                now = lost && !finished;
            }
            if (now) {
                action.run();
            }
        }

        /** On the lock table's event thread for a loss, on the run's thread for a release of its own. */
        void leaseEnded(LeaseEnd end) {
            Runnable action;
            synchronized (this) {
                if (finished || end == LeaseEnd.RELEASED) {
                    return; // released by the run itself or after it: not a loss
                }
                lost(end);
                action = cancel;
            }
            if (action != null) {
                action.run(); // out of the monitor: it runs the work's cancellation
            }
        }

        private void lost(LeaseEnd end) {
            lost = true;
            log.warn(
                    "@LockedRun '{}' ({}) lost its lease while running ({}){}",
                    name,
                    target.method(),
                    end,
                    thread == null ? "; cancelling it" : target.interruptOnLoss() ? "; interrupting it" : "");
            events.publish(LockedRunEvent.lost(LockedRuns.this, name, lease(), end));
            Thread runThread = thread;
            if (runThread != null && target.interruptOnLoss() && !finished) {
                interrupted = true;
                runThread.interrupt();
            }
        }

        /**
         * Marks the run finished, on its thread, before {@code runLocked} releases the lease. A lease that ended
         * before its loss was heard (it ran out, and the table's event has not come yet) counts as lost now.
         */
        private synchronized void finish() {
            finished = true;
            Lease held = lease();
            if (!lost && !held.isHeld() && held.end().orElse(LeaseEnd.EXPIRED) != LeaseEnd.RELEASED) {
                lost(held.end().orElse(LeaseEnd.EXPIRED));
            }
            if (interrupted) {
                Thread.interrupted(); // the interrupt was ours: it must not reach the caller's next task
            }
        }
    }
}
