package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of {@link LockTable#runAsLeader} or {@link LockTable#runAsLeaderAsync} over a {@link Leadership}: one
 * algorithm, two entry points. Each term calls the work with the lease bound as {@link Lease#current()}: a blocking
 * work on a thread of its own, {@code locktable-leader-<name>}, an asynchronous one on the table's completion
 * executor (user code never runs on the table's threads). The end of the term's lease interrupts that thread, or
 * cancels the work's stage, from the path that ended the lease; the next term's work is called only once the last
 * one's has stopped. Work that ends on its own while its lease is held ends the run: the election stops, releasing
 * the lease, then {@link #done} completes as the work did.
 */
final class LeaderRun {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final ElectionContext table;
    private final String name;
    private final Duration leaseDuration;
    private final @Nullable LeaderWork blocking;
    private final @Nullable Function<Lease, ? extends CompletionStage<?>> async;
    private final boolean daemon = Thread.currentThread().isDaemon();
    private final @Nullable ClassLoader loader = Thread.currentThread().getContextClassLoader();
    /** Completes, on whichever thread decides, as the work ended or as the election stopped. */
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The run's end is decided, or the caller ended it: no work is called any more. */
    private final AtomicBoolean over = new AtomicBoolean();

    private @Nullable Leadership leadership; // set before the election starts
    private volatile @Nullable Term latest;
    /** The term whose work was called last: it may run on after its lease was lost, while a newer term waits. */
    private volatile @Nullable Term working;

    /**
     * The last step queued: a term's work or the election's end. Each step starts once the one queued before it
     * completed, so a term's work is called only after the last one stopped.
     */
    private final AtomicReference<CompletableFuture<?>> lastWork =
            new AtomicReference<>(CompletableFuture.completedFuture(null));

    /** One of {@code blocking} and {@code async} is given. */
    LeaderRun(
            ElectionContext table,
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

    /** The leadership's terms, heard at once on the thread that starts them: nothing here blocks. */
    Leadership.Terms terms() {
        return lease -> {
            Term term = new Term(lease);
            latest = term;
            afterLastWork(term::begin);
        };
    }

    /** Queues a step after the last one (one swap, so two steps queued at once keep an order). */
    private void afterLastWork(Supplier<CompletableFuture<@Nullable Void>> step) {
        CompletableFuture<@Nullable Void> queued = new CompletableFuture<>();
        lastWork.getAndSet(queued)
                .handle((value, error) -> null)
                .thenCompose(ignored -> step.get())
                .whenComplete((value, error) -> queued.complete(null));
    }

    /** Follows the election, before it starts: when it stops, the run ends once the last work stopped. */
    void follow(Leadership election) {
        this.leadership = election;
        election.whenStopped()
                .whenComplete((ignored, error) -> afterLastWork(() -> {
                    electionStopped(error);
                    return CompletableFuture.completedFuture(null);
                }));
    }

    /** For {@link LockTable#runAsLeaderAsync}: {@link #done} on the table's completion executor. */
    CompletableFuture<Void> result() {
        CompletableFuture<Void> result = new CompletableFuture<>();
        done.whenCompleteAsync(
                (value, error) -> {
                    if (error == null) {
                        result.complete(null);
                    } else {
                        result.completeExceptionally(error);
                    }
                },
                table.completions());
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
            if (e.getCause() instanceof Exception exception) {
                throw exception;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** The caller ended the run: the work is stopped, then the election, releasing its lease. */
    private void end(boolean awaitWork) {
        over.set(true);
        Term term = latest;
        Term called = working;
        CompletableFuture<?> work = lastWork.get();
        if (term != null) {
            term.stopWork();
        }
        if (called != null && called != term) {
            called.stopWork(); // a lost term's work that the newest term waits for
        }
        if (!awaitWork) {
            Objects.requireNonNull(leadership).stopAsync();
            return;
        }
        long deadline = System.nanoTime() + leaseDuration.toNanos();
        while (!work.isDone()) {
            try {
                work.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // the caller's interrupt is being answered already: keep waiting for the work
            } catch (ExecutionException | TimeoutException e) {
                log.warn(
                        "Work of the leader of lock '{}' did not stop within {} of its interrupt", name, leaseDuration);
                break;
            }
        }
        Objects.requireNonNull(leadership).close();
    }

    private void electionStopped(@Nullable Throwable error) {
        if (!over.compareAndSet(false, true)) {
            return; // the work's end decided already
        }
        if (error != null) {
            done.completeExceptionally(unwrap(error));
        } else if (table.isClosed()) {
            done.completeExceptionally(closedWhileLeading(null));
        } else {
            done.complete(null);
        }
    }

    /** The work ended while its lease was held (or released, or closed with the table): the run ends as it did. */
    private void workEnded(Lease lease, @Nullable Throwable thrown) {
        if (!over.compareAndSet(false, true)) {
            return; // ended by the caller
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
        // no lock: call() writes the stage and thread, then reads stopping; stopWork() writes stopping, then reads
        // them; with volatiles one of the two sees the other, and a second interrupt or cancel is harmless
        private volatile @Nullable CompletableFuture<?> stage;
        private volatile @Nullable Thread thread;
        private volatile boolean stopping; // the caller ended the run

        Term(Lease lease) {
            this.lease = lease;
        }

        /** Calls the work: completes, never exceptionally, once it has stopped (at once if its term is over). */
        CompletableFuture<@Nullable Void> begin() {
            if (blocking != null) {
                return call();
            }
            return CompletableFuture.supplyAsync(this::call, table.completions())
                    .thenCompose(called -> called);
        }

        private CompletableFuture<@Nullable Void> call() {
            if (over.get() || !lease.isHeld()) {
                return CompletableFuture.completedFuture(null); // the election contends again, or has stopped
            }
            working = this;
            CompletableFuture<?> future;
            Thread started = null;
            if (blocking != null) {
                CompletableFuture<@Nullable Object> ended = new CompletableFuture<>();
                future = ended;
                try {
                    started = new Thread(() -> lead(blocking, ended), "locktable-leader-" + name);
                    started.setDaemon(daemon);
                    started.setContextClassLoader(loader);
                    // started before a stop can see it: an interrupt of a thread not yet started may be lost
                    started.start();
                } catch (Throwable e) { // no thread for the work (out of memory): the run ends with the reason
                    started = null;
                    ended.completeExceptionally(e);
                }
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
            if (started == null) { // a stage: cancelled by the lease's end, directly, never on the completion executor
                CompletableFuture<?> work = future;
                Lease.Registration stop = lease.stopOnEnd(() -> work.cancel(true));
                work.whenComplete((value, error) -> stop.close());
            }
            thread = started;
            stage = future;
            if (stopping) {
                stopWork();
            }
            return future.<@Nullable Void>handle((value, error) -> {
                LeaseEnd end = lease.end().orElse(null);
                if (end != LeaseEnd.LOST && end != LeaseEnd.EXPIRED) { // if lost, the election contends again
                    workEnded(lease, error == null || blocking != null ? error : unwrap(error));
                }
                return null;
            });
        }

        private void lead(LeaderWork work, CompletableFuture<@Nullable Object> ended) {
            // the lease's end interrupts this thread from the path that ends it (registered here, on the thread itself,
            // so a lease that ended before the thread started interrupts it at once)
            try (Lease.Registration stop = lease.interruptOnEnd()) {
                ended.complete(lease.callAsCurrent(() -> {
                    work.lead(lease);
                    return null;
                }));
            } catch (Throwable t) {
                ended.completeExceptionally(t);
            }
        }

        /**
         * The caller ended the run: interrupts the work's thread, or cancels its stage, on the caller's thread, before
         * the election releases the lease. (The lease's own end stops the work through its registration.)
         */
        void stopWork() {
            stopping = true;
            CompletableFuture<?> future = stage;
            Thread worker = thread;
            if (future == null || future.isDone()) {
                return;
            }
            if (worker != null) {
                worker.interrupt();
            } else {
                future.cancel(true);
            }
        }
    }
}
