package io.locktable;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One piece of work under a lease, stopped once by the path that ends the lease (lost, expired, released, closed),
 * before the listeners hear of the end and before {@link Lease#whenEnded()} completes: the one mechanism through which
 * every entry point that runs work under a lease ({@code runAsLeader[Async]}, {@code runLocked}, the Spring
 * annotations) is stopped, so that nothing a user writes can delay it.
 *
 * <p>Three kinds, stopped in this order: a thread, interrupted on the ending thread (an interrupt runs no user code);
 * a user's stop action (the cancel of a stage, say), run on a thread of its own ({@code locktable-stop-N}, reused
 * while stops come often) when the lease ends on the table's timer or workers, where no user code may run, and on the
 * ending thread otherwise (a caller's release or close); and
 * the library's own hooks (an election's bookkeeping), run on the ending thread after the work was stopped.
 *
 * <p>Its state moves once from {@code ACTIVE} to {@code STOPPED} or {@code CLOSED}, by compare-and-set, so a stop and a
 * close that race agree on one outcome; an interrupt is delivered under {@code STOPPING}, which {@link #close()} waits
 * out (a few instructions), so that a close on the registered thread can take back an interrupt that was this lease's.
 */
final class WorkStop {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private static final int ACTIVE = 0;
    private static final int STOPPING = 1;
    private static final int STOPPED = 2;
    private static final int CLOSED = 3;

    private enum Kind {
        INTERRUPT,
        ACTION,
        HOOK
    }

    /**
     * Where the users' stop actions run when the table's own threads end a lease: a thread each, never queued behind
     * another (a stop action that blocks holds up no other), reused while they come often, gone after 5 s idle. Shared
     * by the JVM's tables, as no queue joins them.
     */
    private static final ThreadPoolExecutor STOPPERS = new ThreadPoolExecutor(
            0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(), new ThreadFactory() {
                private final AtomicInteger count = new AtomicInteger();

                @Override
                public Thread newThread(Runnable task) {
                    Thread thread = new Thread(task, "locktable-stop-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }
            });

    private final Kind kind;
    private final String lockName;
    private final @Nullable Thread thread;
    private final @Nullable Runnable action;
    private final AtomicInteger state = new AtomicInteger(ACTIVE);

    private WorkStop(Kind kind, String lockName, @Nullable Thread thread, @Nullable Runnable action) {
        this.kind = kind;
        this.lockName = lockName;
        this.thread = thread;
        this.action = action;
    }

    /** Interrupts {@code thread} when the lease ends. */
    static WorkStop interrupt(String lockName, Thread thread) {
        return new WorkStop(Kind.INTERRUPT, lockName, thread, null);
    }

    /** Runs a user's {@code action} when the lease ends, never on the table's timer or workers. */
    static WorkStop action(String lockName, Runnable action) {
        return new WorkStop(Kind.ACTION, lockName, null, action);
    }

    /** Runs the library's {@code hook} on the ending thread, after the work was stopped; it must not block. */
    static WorkStop hook(String lockName, Runnable hook) {
        return new WorkStop(Kind.HOOK, lockName, null, hook);
    }

    /** Stops each of {@code stops} once: the work (threads and actions) first, then the library's hooks. */
    static void stopAll(List<WorkStop> stops) {
        stopWork(stops);
        runHooks(stops);
    }

    /** Stops the work among {@code stops}: interrupts the threads, runs the users' stop actions. */
    static void stopWork(List<WorkStop> stops) {
        for (WorkStop stop : stops) {
            if (stop.kind != Kind.HOOK) {
                stop.stop();
            }
        }
    }

    /** Runs the library's hooks among {@code stops}, once the work was stopped. */
    static void runHooks(List<WorkStop> stops) {
        for (WorkStop stop : stops) {
            if (stop.kind == Kind.HOOK) {
                stop.stop();
            }
        }
    }

    /** Stops the work now, unless it was stopped or closed before. */
    void stop() {
        if (!state.compareAndSet(ACTIVE, STOPPING)) {
            return;
        }
        try {
            switch (kind) {
                case INTERRUPT -> Objects.requireNonNull(thread).interrupt();
                case ACTION -> runAction(Objects.requireNonNull(action));
                case HOOK -> Objects.requireNonNull(action).run();
            }
        } finally {
            state.set(STOPPED);
        }
    }

    private void runAction(Runnable stop) {
        if (!Scheduler.onTimerOrWorker()) {
            runLogged(stop);
            return;
        }
        try {
            STOPPERS.execute(() -> runLogged(stop));
        } catch (RejectedExecutionException | OutOfMemoryError e) { // no thread to be had: late would be worse
            runLogged(stop);
        }
    }

    private void runLogged(Runnable stop) {
        try {
            stop.run();
        } catch (RuntimeException | Error e) {
            log.warn("Stopping the work under the lease of lock '{}' threw; ignored", lockName, e);
        }
    }

    /** Whether this was closed or stopped already: nothing is left to stop. */
    boolean isDone() {
        return state.get() != ACTIVE;
    }

    /** See {@link Lease.Registration#close()}. */
    void close() {
        if (state.compareAndSet(ACTIVE, CLOSED)) {
            return;
        }
        if (kind != Kind.INTERRUPT || thread != Thread.currentThread()) {
            return;
        }
        while (state.get() == STOPPING) {
            Thread.onSpinWait(); // the interrupt is being delivered: a few instructions
        }
        {
            Thread.interrupted(); // the lease's interrupt must not reach what this thread does next
        }
    }
}
