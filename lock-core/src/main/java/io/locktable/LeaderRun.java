package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of {@link LockTable#runAsLeader} or {@link LockTable#runAsLeaderAsync}, over a {@link Leadership} that
 * elects: one algorithm, two entry points. Each term calls the work with the lease bound as {@link Lease#current()}:
 * a blocking work on a thread of its own, {@code locktable-leader-<name>}, an asynchronous one on the JDK's default
 * asynchronous executor (user code never runs on the table's threads). The end of the term's lease interrupts that
 * thread, or cancels the work's stage, from the path that ended the lease; the next term's work is called only once
 * the last one's has stopped. Work that ends on its own while its lease is held ends the run: the election stops,
 * releasing the lease, then {@link #done} completes as the work did.
 */
final class LeaderRun {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final LockTable table;
    private final String name;
    private final Duration leaseDuration;
    private final @Nullable LeaderWork blocking;
    private final @Nullable Function<Lease, ? extends CompletionStage<?>> async;
    private final boolean daemon = Thread.currentThread().isDaemon();
    private final @Nullable ClassLoader loader = Thread.currentThread().getContextClassLoader();
    /** Completes, on whichever thread decides, when the run is over: as the work ended, or why the election did. */
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private final ReentrantLock lock = new ReentrantLock(); // held briefly, never over a request or user code
    private @Nullable Leadership leadership; // set before the election starts
    private @Nullable Term running; // guarded by lock: the term whose work has not stopped
    private @Nullable Lease pending; // guarded by lock: a term that started while the last one's work ran on
    private boolean stopped; // guarded by lock: the election stopped
    private @Nullable Throwable stopError; // guarded by lock: why, if on an error
    private boolean over; // guarded by lock: the run is over, or the caller ended it

    LeaderRun(LockTable table, String name, Duration leaseDuration, LeaderWork work) {
        this(table, name, leaseDuration, work, null);
    }

    LeaderRun(
            LockTable table, String name, Duration leaseDuration, Function<Lease, ? extends CompletionStage<?>> work) {
        this(table, name, leaseDuration, null, work);
    }

    private LeaderRun(
            LockTable table,
            String name,
            Duration leaseDuration,
            @Nullable LeaderWork blocking,
            @Nullable Function<Lease, ? extends CompletionStage<?>> async) {
        this.table = table;
        this.name = name;
        this.leaseDuration = leaseDuration;
        this.blocking = blocking;
        this.async = async;
    }

    /** The leadership's terms, heard at once on the thread that starts or ends them: nothing here blocks. */
    Leadership.Terms terms() {
        return new Leadership.Terms() {
            @Override
            public void started(Lease lease) {
                Term term;
                lock.lock();
                try {
                    if (over) {
                        return; // the leadership is stopping: its stop releases the lease
                    }
                    if (running != null) {
                        pending = lease; // called once the last term's work has stopped
                        return;
                    }
                    term = new Term(lease);
                    running = term;
                } finally {
                    lock.unlock();
                }
                term.begin();
            }

            @Override
            public void ended(Lease lease) {
                Term term;
                lock.lock();
                try {
                    term = running;
                } finally {
                    lock.unlock();
                }
                if (term != null && term.lease == lease) {
                    term.stopWork();
                }
            }
        };
    }

    /** Follows the election, before it starts. */
    void follow(Leadership election) {
        this.leadership = election;
        election.whenStopped().whenComplete((ignored, error) -> electionStopped(error));
    }

    /**
     * For {@link LockTable#runAsLeaderAsync}: completes as {@link #done}, on the JDK's default asynchronous executor
     * (never on the table's threads); its cancellation ends the run.
     */
    CompletableFuture<Void> result() {
        CompletableFuture<Void> result = new CompletableFuture<>();
        done.whenCompleteAsync((value, error) -> {
            if (error == null) {
                result.complete(null);
            } else {
                result.completeExceptionally(error);
            }
        });
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                end(false);
            }
        });
        return result;
    }

    /**
     * For {@link LockTable#runAsLeader}: waits for the run's end and returns or throws as it ended. An interrupt
     * interrupts the work, waits for it to stop (at most one lease), stops the election, and is rethrown.
     */
    void await() throws Exception {
        try {
            done.get();
        } catch (InterruptedException e) {
            end(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** The caller ended the run: the work is stopped, then the election, releasing its lease. */
    private void end(boolean awaitWork) {
        Term term;
        lock.lock();
        try {
            over = true;
            term = running;
            pending = null;
        } finally {
            lock.unlock();
        }
        if (term != null) {
            term.stopWork();
            if (awaitWork) {
                term.awaitStopped();
            }
        }
        if (awaitWork) {
            Objects.requireNonNull(leadership).close();
        } else {
            Objects.requireNonNull(leadership).stopAsync();
        }
    }

    /** The election stopped: unless a term's work is under way (its end decides), the run ends with it. */
    private void electionStopped(@Nullable Throwable error) {
        lock.lock();
        try {
            stopped = true;
            stopError = error;
            if (over || running != null) {
                return;
            }
            over = true;
        } finally {
            lock.unlock();
        }
        endAsStopped(error);
    }

    private void endAsStopped(@Nullable Throwable error) {
        if (error != null) {
            done.completeExceptionally(unwrap(error));
        } else if (table.isClosed()) {
            done.completeExceptionally(closedWhileLeading(null));
        } else {
            done.complete(null);
        }
    }

    /** A term's work stopped (or was never called): the next term, if one started meanwhile, or the run's end. */
    private void termOver(Term term) {
        Term next = null;
        boolean end = false;
        Throwable error;
        lock.lock();
        try {
            if (running == term) {
                running = null;
            }
            error = stopError;
            if (over) {
                return;
            }
            Lease waiting = pending;
            pending = null;
            if (waiting != null) {
                next = new Term(waiting);
                running = next;
            } else if (stopped) {
                over = true;
                end = true;
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            next.begin();
        } else if (end) {
            endAsStopped(error);
        }
    }

    /** The work ended while its lease was held (or released, or closed with the table): the run ends as it did. */
    private void workEnded(Lease lease, @Nullable Throwable thrown) {
        lock.lock();
        try {
            if (over) {
                return; // ended by the caller
            }
            over = true;
            running = null;
            pending = null;
        } finally {
            lock.unlock();
        }
        boolean closed = lease.end().orElse(null) == LeaseEnd.CLOSED || table.isClosed();
        // the table closed under the term and the work stopped for it: not the work's own failure
        Throwable outcome = closed && thrown != null ? closedWhileLeading(thrown) : thrown;
        Objects.requireNonNull(leadership).stopAsync().whenComplete((ignored, error) -> {
            if (outcome == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(outcome);
            }
        });
    }

    private IllegalStateException closedWhileLeading(@Nullable Throwable cause) {
        return new IllegalStateException(
                "lock table " + table.tableName() + " was closed while leading lock '" + name + "'", cause);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** One term: the work's call, and its thread or stage. */
    private final class Term {
        private final Lease lease;
        private final CompletableFuture<Void> workStopped = new CompletableFuture<>();
        private @Nullable CompletableFuture<?> stage; // guarded by lock
        private @Nullable Thread thread; // guarded by lock
        private boolean stopping; // guarded by lock: the lease ended or the caller ended the run

        Term(Lease lease) {
            this.lease = lease;
        }

        /** Starts the work's thread at once, or calls the asynchronous work off the table's threads. */
        void begin() {
            if (blocking != null) {
                call();
            } else {
                CompletableFuture.runAsync(this::call);
            }
        }

        private void call() {
            if (!lease.isHeld()) {
                workStopped.complete(null);
                termOver(this); // its term ended before the work was called: the election contends again
                return;
            }
            CompletableFuture<?> future;
            Thread started = null;
            if (blocking != null) {
                CompletableFuture<@Nullable Object> ended = new CompletableFuture<>();
                started = new Thread(() -> lead(blocking, ended), "locktable-leader-" + name);
                started.setDaemon(daemon);
                started.setContextClassLoader(loader);
                future = ended;
            } else {
                try {
                    CompletionStage<?> returned = lease.callAsCurrent(
                            () -> Objects.requireNonNull(async).apply(lease));
                    future = Objects.requireNonNull(returned, "the leader's work returned no stage")
                            .toCompletableFuture();
                } catch (Throwable e) {
                    future = CompletableFuture.failedFuture(e);
                }
            }
            boolean stop;
            lock.lock();
            try {
                stage = future;
                thread = started;
                stop = stopping;
            } finally {
                lock.unlock();
            }
            if (started != null) {
                started.start(); // before a stop's interrupt: an interrupt of a thread not yet started is lost
            }
            if (stop) {
                stopWork();
            }
            future.whenComplete((value, error) -> stageCompleted(error));
        }

        private void lead(LeaderWork work, CompletableFuture<@Nullable Object> ended) {
            try {
                ended.complete(lease.callAsCurrent(() -> {
                    work.lead(lease);
                    return null;
                }));
            } catch (Throwable t) {
                ended.completeExceptionally(t);
            }
        }

        /** On the thread that ended the work: decides and hands on, never blocks. */
        private void stageCompleted(@Nullable Throwable error) {
            workStopped.complete(null);
            LeaseEnd end = lease.end().orElse(null);
            if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
                termOver(this); // whatever the work did, the election contends again by itself
            } else {
                workEnded(lease, error == null || blocking != null ? error : unwrap(error));
            }
        }

        /**
         * Interrupts the work's thread at once, or cancels the work's stage on the JDK's default asynchronous
         * executor: this runs on the path that ended the lease, and a cancel runs the stage's dependents (user code).
         */
        void stopWork() {
            CompletableFuture<?> future;
            Thread worker;
            lock.lock();
            try {
                stopping = true;
                future = stage;
                worker = thread;
            } finally {
                lock.unlock();
            }
            if (worker != null) {
                if (!workStopped.isDone()) {
                    worker.interrupt();
                }
            } else if (future != null) {
                CompletableFuture.runAsync(() -> future.cancel(true));
            }
        }

        /** After the caller's interrupt: waits for the work to stop, at most one lease, whatever interrupts. */
        void awaitStopped() {
            long deadline = System.nanoTime() + leaseDuration.toNanos();
            while (!workStopped.isDone()) {
                try {
                    workStopped.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // the caller's interrupt is being answered already: keep waiting for the work
                } catch (ExecutionException | TimeoutException e) {
                    log.warn(
                            "Work of the leader of lock '{}' did not stop within {} of its interrupt",
                            name,
                            leaseDuration);
                    return;
                }
            }
        }
    }
}
