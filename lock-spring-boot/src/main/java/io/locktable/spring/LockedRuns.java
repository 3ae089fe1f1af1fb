package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.DeferredCalls.Held;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/**
 * Runs each call of a {@link LockedRun} method under a lock of its own, as {@link LockTable#runLocked} does (or,
 * for work that ends after the call returned, with {@code tryAcquireAsync}: see {@link DeferredCalls}), and keeps what
 * the endpoint, the meters and the {@link LockedRunEvent}s tell about the runs. A lost lease interrupts the run's
 * thread when {@link LockedRun#interruptOnLoss()} says so, or cancels deferred work, through the lease's own
 * registration ({@link Lease#interruptOnEnd()}, {@link Lease#stopOnEnd(Runnable)}): before any listener or event. A {@link SmartLifecycle} stopping after
 * the task schedulers: a stop starts no new run and waits for the calls in flight, at most the shutdown timeout.
 *
 * <pre>{@code
 * lockedRuns.running();                // the runs whose body runs now on this instance
 * lockedRuns.skipped("hourly-report"); // calls skipped since startup
 * }</pre>
 */
public final class LockedRuns implements SmartLifecycle, ApplicationEventPublisherAware, LockTableListener {

    private static final Logger log = LoggerFactory.getLogger(LockedRun.class);

    private final LockTable locks;
    private final Duration shutdownTimeout;
    private final EventThread events = new EventThread(this);
    private final ConcurrentSkipListMap<String, PerName> names = new ConcurrentSkipListMap<>();
    private final EvaluatedNames evaluated = new EvaluatedNames();
    /** The calls from their start (before the acquire) to their end: a stop waits for them. */
    private final Set<Run> inFlight = ConcurrentHashMap.newKeySet();
    /** By declared name: the last run this instance knows of. */
    private final ConcurrentSkipListMap<String, LastLockedRun> lastRuns = new ConcurrentSkipListMap<>();

    private volatile LockedRunObserver observer = LockedRunObserver.NONE;
    private volatile boolean accepting = true;
    private volatile boolean started;

    /**
     * Creates the runs of a lock table, whose stop waits at most {@link LeaderRunner#DEFAULT_SHUTDOWN_TIMEOUT}.
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
     * The runs whose body runs now on this instance (not those whose lock is kept for a minimum hold).
     *
     * @return a snapshot, sorted by name, then by start
     */
    public List<LockedRunStatus> running() {
        return inFlight.stream()
                .filter(run -> run.lease != null && !run.finished)
                .map(run -> new LockedRunStatus(
                        run.name, run.lease().fencingToken(), run.lease().acquiredAt()))
                .sorted(Comparator.comparing(LockedRunStatus::name).thenComparing(LockedRunStatus::startedAt))
                .toList();
    }

    /**
     * The last run of each {@link LockedRun} method this instance knows of, by the name as declared: its own last run
     * that ended, or, if a later call was skipped because the lock was held, the run the lock's item showed then.
     * Reads nothing from DynamoDB.
     *
     * @return a snapshot, sorted by the name as declared
     */
    public List<LastLockedRun> lastRuns() {
        return List.copyOf(lastRuns.values());
    }

    /**
     * Notes the run another holder has when a call of a {@link LockedRun} method finds its lock held (the table's
     * event, read from the item), for {@link #lastRuns()}.
     */
    @Override
    public void onBusy(String name, LockRecord holder) {
        String declared = declaredName(name);
        if (!names.containsKey(declared) || holder.owner().isEmpty()) {
            return;
        }
        LastLockedRun seen = new LastLockedRun(
                name,
                holder.holder().orElse(holder.owner().get()),
                holder.fencingToken(),
                Instant.now(),
                Optional.empty(),
                Optional.empty());
        lastRuns.compute(declared, (key, known) -> later(known, seen));
    }

    /**
     * The later of two runs of one declared name: of one lock, the one with the higher fencing token (the same run
     * seen again keeps when it was first seen; an event heard late never hides a later run); of two locks of one
     * template, the one met last.
     */
    private static LastLockedRun later(@Nullable LastLockedRun known, LastLockedRun met) {
        if (known == null || !known.name().equals(met.name())) {
            return met;
        }
        if (known.fencingToken() != met.fencingToken()) {
            return met.fencingToken() > known.fencingToken() ? met : known;
        }
        return met.outcome().isPresent() ? met : known; // this instance's own end tells more than a sighting
    }

    /**
     * The names of the locks of the {@link LockedRun} methods, found at startup or first met at a call; a name with
     * {@code #{...}} parts as declared, such as {@code report-#{#region}}.
     *
     * @return an unmodifiable snapshot, sorted
     */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(names.keySet()));
    }

    /**
     * How many calls of a lock were skipped since startup, for any reason: a monotonic count, for a meter.
     *
     * @param name the name of the lock, as among {@link #names()}
     * @return the number of skipped calls, 0 for a name never used
     */
    public long skipped(String name) {
        PerName perName = names.get(name);
        return perName == null ? 0 : perName.skipped.sum();
    }

    /**
     * The name as declared of a lock a call took, which the meters tag it with: {@code report-#{#region}} for {@code
     * report-eu} (while among the last {@value EvaluatedNames#LIMIT} names evaluated), else the name itself.
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
     * Sets what hears each call, such as the starter's observations of runs.
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
     * Runs one call under the lock of the given name, as {@link LockTable#runLocked} does but interrupting the body on
     * a loss only when {@link LockedRun#interruptOnLoss()} says so; returns what the body returned, or what a skip
     * returns.
     */
    @Nullable
    Object call(AnnotatedMethods.Declared target, String name, Method method, Callable<Object> body) throws Exception {
        Run run = new Run(target, name, method, Thread.currentThread());
        if (!accepting) {
            return run.skip(LockedRunEvent.SkipReason.STOPPED);
        }
        Optional<Lease> acquired;
        try {
            acquired = locks.tryAcquire(name, target.leaseDuration());
        } catch (RuntimeException e) {
            return run.failed(e); // the acquire failed
        } catch (Error e) {
            run.observed.skipped(e);
            run.close();
            throw e;
        }
        if (acquired.isEmpty()) {
            run.answered();
            return run.skip(LockedRunEvent.SkipReason.BUSY);
        }
        Lease lease = acquired.get();
        long acquiredAt = System.nanoTime();
        Throwable failure = null;
        try {
            lease.callAsCurrent(() -> run.call(body));
            // a lease that ended before its acquire was answered: the body did not run
            return run.lease == null ? run.skip(LockedRunEvent.SkipReason.ERROR) : run.result;
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        } finally {
            lease.releaseAfter(target.minHold().minusNanos(System.nanoTime() - acquiredAt));
            if (run.lease != null) {
                run.ended(failure); // after the lease was released, or left to its minHold
            }
        }
    }

    /**
     * Starts a deferred call: a future of its run, or of null when skipped, completed where the acquire is answered.
     * Cancelling it gives up the acquire (a lease won all the same is released), with no event and no count.
     */
    CompletableFuture<@Nullable Held> hold(AnnotatedMethods.Declared target, String name, Method method) {
        Run run = new Run(target, name, method, null);
        CompletableFuture<Optional<Lease>> acquiring;
        try {
            if (!accepting) {
                run.skip(LockedRunEvent.SkipReason.STOPPED);
                return CompletableFuture.completedFuture(null);
            }
            acquiring = locks.tryAcquireAsync(name, target.leaseDuration());
        } catch (RuntimeException e) {
            run.failed(e);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<@Nullable Held> result = new CompletableFuture<>();
        result.whenComplete((held, failure) -> {
            if (result.isCancelled()) {
                acquiring.cancel(true); // lock-core sends nothing more, and releases a lease it wins meanwhile
            }
        });
        acquiring.whenComplete((acquired, failure) -> {
            Held held = run.opened(acquired, failure, result.isCancelled());
            if (!result.complete(held) && held != null) {
                held.end(new CancellationException("cancelled by its caller")); // as the lock was taken
            }
        });
        return result;
    }

    /** Starts admitting runs again after a stop, and the events. Called by the application context. */
    @Override
    public void start() {
        events.start();
        accepting = true;
        started = true;
    }

    /** Starts no new run, waits for the calls in flight (at most the shutdown timeout), and flushes the events. */
    @Override
    public void stop() {
        accepting = false; // before reading the calls in flight, which a call joins before it reads this
        started = false;
        try {
            CompletableFuture.allOf(inFlight.stream().map(run -> run.done).toArray(CompletableFuture<?>[]::new))
                    .get(shutdownTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn(
                    "{} @LockedRun runs still running after {}; their locks are released when they end or when the"
                            + " lock table closes",
                    inFlight.size(),
                    shutdownTimeout);
        }
        events.stop(EventThread.FLUSH);
    }

    /** True between {@link #start()} and {@link #stop()}, while it admits runs. */
    @Override
    public boolean isRunning() {
        return started;
    }

    /** {@link LeaderRunner#PHASE}: it stops after the task schedulers. */
    @Override
    public int getPhase() {
        return LeaderRunner.PHASE;
    }

    /** Receives the publisher of the run events; called by the application context. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        events.publisher(publisher);
    }

    @Override
    public String toString() {
        return "LockedRuns[" + locks.tableName() + ", " + running().size() + " running]";
    }

    /** Per declared name: the skipped calls, and the acquires that failed in a row (for the log). */
    private record PerName(LongAdder skipped, AtomicInteger failuresInRow) {
        PerName() {
            this(new LongAdder(), new AtomicInteger());
        }
    }

    /** One call, in flight from its start to its end; a deferred one ({@link #hold}) has no thread to interrupt. */
    private final class Run extends Held {
        final AnnotatedMethods.Declared target;
        final String name;
        final Method method;
        final PerName perName;
        final LockedRunObserver.Call observed;
        final @Nullable Thread thread;
        final CompletableFuture<@Nullable Void> done = new CompletableFuture<>();
        volatile @Nullable Lease lease; // set when the body starts
        volatile boolean finished;
        volatile boolean lost;
        private volatile Lease.@Nullable Registration stop; // how the lease's end stops the work, set by begin
        long startedNanos;
        Duration took = Duration.ZERO;

        @Nullable
        Object result;

        /** Starts a call, on the caller's thread; a deferred one, with no thread, has its work end elsewhere. */
        Run(AnnotatedMethods.Declared target, String name, Method method, @Nullable Thread thread) {
            this.target = target;
            this.name = name;
            this.method = method;
            this.thread = thread;
            observed = thread == null
                    ? observer.startedDeferred(name, target.name())
                    : observer.started(name, target.name());
            perName = names.computeIfAbsent(target.name(), n -> new PerName());
            if (!name.equals(target.name())) {
                evaluated.note(name, target.name()); // before the acquire, whose events the meters tag
            }
            inFlight.add(this);
        }

        @Override
        Lease lease() {
            return Objects.requireNonNull(lease, "lease");
        }

        /** The work given to {@code runLocked}: the body, with the lease bound; returns itself, never null. */
        Run call(Callable<Object> body) throws Exception {
            if (begin(Lease.current().orElseThrow())) {
                try {
                    result = body.call();
                } finally {
                    finish();
                }
            }
            return this;
        }

        /** The acquire of a deferred call was answered: this run, started, or null when the call does not run. */
        @Nullable
        Held opened(@Nullable Optional<Lease> acquired, @Nullable Throwable failure, boolean cancelled) {
            if (cancelled) { // lock-core releases a lease won after the cancel, this one a lease won before it
                if (acquired != null) {
                    acquired.ifPresent(Lease::release);
                }
                observed.skipped(null);
                close();
            } else if (failure != null) {
                failed(
                        failure instanceof CompletionException && failure.getCause() != null
                                ? failure.getCause()
                                : failure);
            } else if (acquired.isEmpty()) {
                answered();
                skip(LockedRunEvent.SkipReason.BUSY);
            } else if (!begin(acquired.get())) {
                acquired.get().release(); // answered after a whole lease: writes nothing
                skip(LockedRunEvent.SkipReason.ERROR);
            } else {
                return this;
            }
            return null;
        }

        /** Starts the body under its lease; false when the lease ended before its acquire was answered. */
        private boolean begin(Lease bound) {
            answered();
            if (!bound.isHeld()) {
                return false;
            }
            startedNanos = System.nanoTime();
            lease = bound;
            events.publish(LockedRunEvent.started(LockedRuns.this, name, bound));
            // the work is stopped by the path that ends the lease, before any listener or event; the event follows
            if (thread == null) {
                stop = bound.stopOnEnd(() -> {
                    if (bound.end().orElse(LeaseEnd.EXPIRED) != LeaseEnd.RELEASED) {
                        loss.complete(null); // cancels the work: its future, or its publisher
                    }
                });
            } else if (target.interruptOnLoss()) {
                stop = bound.interruptOnEnd(); // begin runs on the run's thread
            }
            bound.whenEnded().thenAccept(this::leaseEnded);
            return true;
        }

        /** Ends a deferred run: releases the lease as {@code runLocked} does, not before the minimum hold. */
        @Override
        void end(@Nullable Throwable failure) {
            finish();
            lease().releaseAfter(target.minHold().minusNanos(System.nanoTime() - startedNanos));
            ended(failure);
        }

        /** On the lock table's event thread, after the work was stopped; a release is the run's own, not a loss. */
        private void leaseEnded(LeaseEnd end) {
            if (end != LeaseEnd.RELEASED) {
                lost(end);
            }
        }

        /** Tells a loss once while the body runs; false when told or ended. */
        private synchronized boolean lost(LeaseEnd end) {
            if (lost || finished) {
                return false;
            }
            lost = true;
            log.warn(
                    "@LockedRun '{}' ({}) lost its lease while running ({}){}",
                    name,
                    target.method(),
                    end,
                    thread == null ? "; cancelled it" : target.interruptOnLoss() ? "; interrupted it" : "");
            events.publish(LockedRunEvent.lost(LockedRuns.this, name, lease(), end));
            return true;
        }

        /** The body ended. A lease that ran out before its loss was heard counts as lost now. */
        private synchronized void finish() {
            Lease held = lease();
            LeaseEnd end = held.end().orElse(LeaseEnd.EXPIRED);
            if (!held.isHeld() && end != LeaseEnd.RELEASED) {
                lost(end);
            }
            finished = true;
            took = Duration.ofNanos(System.nanoTime() - startedNanos);
            Lease.Registration registered = stop;
            if (registered != null) {
                registered.close(); // on the run's thread, it clears an interrupt that was the lease's
            }
        }

        /** Tells how a run that started ended, and closes it. */
        void ended(@Nullable Throwable failure) {
            LockedRunEvent.Outcome outcome = lost
                    ? LockedRunEvent.Outcome.LOST
                    : failure != null ? LockedRunEvent.Outcome.FAILED : LockedRunEvent.Outcome.COMPLETED;
            events.publish(LockedRunEvent.ended(LockedRuns.this, name, lease(), outcome, took, failure));
            LastLockedRun run = new LastLockedRun(
                    name,
                    locks.options().holder().orElse(locks.owner()),
                    lease().fencingToken(),
                    lease().acquiredAt(),
                    Optional.of(Instant.now()),
                    Optional.of(outcome));
            lastRuns.compute(target.name(), (key, known) -> later(known, run));
            observed.ended(outcome, failure);
            close();
        }

        /** Skips the call, counted and told, and closes it; returns what a skipped call returns. */
        @Nullable
        Object skip(LockedRunEvent.SkipReason reason) {
            perName.skipped.increment();
            log.debug("Skipped {} ('{}'): {}", target.method(), name, reason);
            events.publish(LockedRunEvent.skipped(LockedRuns.this, name, reason));
            observed.skipped(null);
            close();
            return LockAnnotationInterceptor.skipped(method);
        }

        /** Skips a call whose acquire failed, the first of a row logged as one WARN line (an SDK stack is long). */
        @Nullable
        Object failed(Throwable error) {
            int inRow = perName.failuresInRow.incrementAndGet();
            if (inRow == 1) {
                log.warn(
                        "@LockedRun '{}' ({}): could not take the lock in table '{}', the call is skipped: {}. Check"
                                + " that DynamoDB answers at the client's endpoint and region, and the client's"
                                + " credentials and permissions; later failures of a row are logged at DEBUG",
                        name,
                        target.method(),
                        locks.tableName(),
                        error.toString().replaceAll("\\s*\\R\\s*", " "));
            }
            log.debug("@LockedRun '{}': the failed acquire ({} in a row)", name, inRow, error);
            return skip(LockedRunEvent.SkipReason.ERROR);
        }

        private void answered() {
            int failures = perName.failuresInRow.getAndSet(0);
            if (failures > 0) {
                log.info(
                        "@LockedRun '{}': the lock table answers again after {} failed acquires",
                        target.name(),
                        failures);
            }
        }

        private void close() {
            inFlight.remove(this);
            done.complete(null);
        }
    }
}
