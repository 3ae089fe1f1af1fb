package io.locktable;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One call of {@link LockTable#runAsLeaderAsync}: {@link LeaderRun}'s semantics with a work that returns a stage
 * instead of a thread that blocks. A {@link Leadership} elects; each term calls the work on the JDK's default
 * asynchronous executor (never on the table's threads) with the lease bound as {@link Lease#current()}; the end of the
 * term's lease cancels the work's stage, and the next term's work is called only once the last one's stage completed.
 * Work that completes on its own while its lease is held ends the run: the lease is released, then the caller's future
 * completes as the work did.
 */
final class LeaderRunAsync {

    private final LockTable table;
    private final String name;
    private final Function<Lease, ? extends CompletionStage<?>> work;
    private final CompletableFuture<Void> result = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock(); // held briefly, never over a request or user code

    private @Nullable Leadership leadership; // set before the election starts
    private @Nullable Term running; // guarded by lock: the term whose work has not completed
    private @Nullable Lease pending; // guarded by lock: a term that started while the last one's work had not stopped
    private boolean stopped; // guarded by lock: the election stopped
    private @Nullable Throwable stopError; // guarded by lock: why, if on an error
    private boolean over; // guarded by lock: the caller's future completes, or was cancelled

    LeaderRunAsync(LockTable table, String name, Function<Lease, ? extends CompletionStage<?>> work) {
        this.table = table;
        this.name = name;
        this.work = work;
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
                    term.cancelWork();
                }
            }
        };
    }

    /** Follows the election, before it starts; returns the caller's future, whose cancellation ends it. */
    CompletableFuture<Void> follow(Leadership election) {
        this.leadership = election;
        election.whenStopped().whenComplete((done, error) -> electionStopped(error));
        result.whenComplete((done, error) -> {
            if (result.isCancelled()) {
                cancelled();
            }
        });
        return result;
    }

    /** The caller cancelled: the work's stage is cancelled, the election stops and its lease is released. */
    private void cancelled() {
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
            term.cancelWork();
        }
        Objects.requireNonNull(leadership).stopAsync();
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
            AsyncAcquire.completeExceptionally(result, unwrap(error));
        } else if (table.isClosed()) {
            AsyncAcquire.completeExceptionally(result, closedWhileLeading(null));
        } else {
            complete(null);
        }
    }

    /** A term's work is over (or was never called): the next term, if one started meanwhile, or the run's end. */
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

    /**
     * The work's stage completed while its lease was held (or released from outside, or closed with the table): the
     * run ends as the work did, once the lease is released.
     */
    private void workEnded(Lease lease, @Nullable Throwable thrown) {
        lock.lock();
        try {
            if (over) {
                return; // cancelled by the caller
            }
            over = true;
            running = null;
            pending = null;
        } finally {
            lock.unlock();
        }
        LeaseEnd end = lease.end().orElse(null);
        Throwable outcome;
        if ((end == LeaseEnd.CLOSED || table.isClosed()) && thrown != null) {
            outcome = closedWhileLeading(thrown); // the table closed under the term and the work stopped for it
        } else {
            outcome = thrown;
        }
        // the election's stop releases the term's lease on a worker, then the caller hears
        Objects.requireNonNull(leadership).stopAsync().whenComplete((done, error) -> {
            if (outcome == null) {
                complete(null);
            } else {
                AsyncAcquire.completeExceptionally(result, outcome);
            }
        });
    }

    private void complete(@Nullable Void value) {
        CompletableFuture.runAsync(() -> result.complete(value));
    }

    private IllegalStateException closedWhileLeading(@Nullable Throwable cause) {
        return new IllegalStateException(
                "lock table " + table.tableName() + " was closed while leading lock '" + name + "'", cause);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** One term: the work's call and its stage. */
    private final class Term {
        private final Lease lease;
        private @Nullable CompletableFuture<?> stage; // guarded by lock
        private boolean cancelled; // guarded by lock: the lease ended or the caller cancelled

        Term(Lease lease) {
            this.lease = lease;
        }

        /** Calls the work off the table's threads, with the lease bound as current during the call. */
        void begin() {
            CompletableFuture.runAsync(this::call);
        }

        private void call() {
            if (!lease.isHeld()) {
                termOver(this); // its term ended before the work was called: the election contends again
                return;
            }
            CompletableFuture<?> future;
            try {
                CompletionStage<?> returned = lease.callAsCurrent(() -> work.apply(lease));
                future = Objects.requireNonNull(returned, "the leader's work returned no stage")
                        .toCompletableFuture();
            } catch (Throwable e) {
                future = CompletableFuture.failedFuture(e);
            }
            boolean cancel;
            lock.lock();
            try {
                stage = future;
                cancel = cancelled;
            } finally {
                lock.unlock();
            }
            if (cancel) {
                future.cancel(true);
            }
            future.whenComplete((value, error) -> stageCompleted(error));
        }

        /** On the thread that completed the work's stage: decides and hands on, never blocks. */
        private void stageCompleted(@Nullable Throwable error) {
            LeaseEnd end = lease.end().orElse(null);
            if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
                termOver(this); // whatever the work did, the election contends again by itself
            } else {
                workEnded(lease, error == null ? null : unwrap(error));
            }
        }

        /**
         * Cancels the work's stage, on the JDK's default asynchronous executor: this runs on the path that ended the
         * lease (the table's timer or a worker), and a cancel runs the stage's dependents, the user's code, at once.
         */
        void cancelWork() {
            CompletableFuture<?> future;
            lock.lock();
            try {
                cancelled = true;
                future = stage;
            } finally {
                lock.unlock();
            }
            if (future != null) {
                CompletableFuture<?> toCancel = future;
                CompletableFuture.runAsync(() -> toCancel.cancel(true));
            }
        }
    }
}
