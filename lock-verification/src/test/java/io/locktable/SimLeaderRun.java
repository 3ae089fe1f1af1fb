package io.locktable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One {@link LockTable#runAsLeaderAsync} call of a simulated process, the real {@code LeaderRun} over a real {@link
 * Leadership}, and the work of each of its terms: a stage that runs for up to three leases of simulated time and then
 * completes, a quarter of the time exceptionally, unless the end of its lease cancels it first. It checks what the
 * reference promises of a leader's work:
 *
 * <ul>
 *   <li>a term's work is called on the completion executor, with its lease held and bound as {@link Lease#current()},
 *       and only once the last term's work has stopped; never again after the work ended on its own;
 *   <li>the end of a term's lease cancels the work's stage within issue 34's bound, whatever the completion executor
 *       is doing (the cancel does not go through it);
 *   <li>cancelling the run's future cancels the work's stage before the cancel returns;
 *   <li>work that ends on its own while its lease is held ends the run the same way, its lease released first;
 *   <li>a table's {@code close()} ends the run and its work.
 * </ul>
 */
final class SimLeaderRun {

    /** What the runs of one simulation did, for its summary. */
    static final class Counts {
        long terms;
        /** Terms whose stage was cancelled by its lease's end (not by a user's cancel, which comes before it). */
        long cancelledByTheirLease;
    }

    /** One term's work: its lease, the stage it returned, until when it runs and whether it then fails. */
    private static final class TermWork {
        final Lease lease;
        final CompletableFuture<Void> stage = new CompletableFuture<>();
        final long untilNanos;
        final boolean fails;
        final SimStopBound stop = new SimStopBound();

        TermWork(Lease lease, long untilNanos, boolean fails) {
            this.lease = lease;
            this.untilNanos = untilNanos;
            this.fails = fails;
        }
    }

    private final SimProcess process;
    private final String name;
    private final long leaseNanos;
    private final Random random;
    private final LongSupplier now;
    private final Consumer<String> violation;
    private final Counts counts;
    private final List<TermWork> terms = new ArrayList<>();
    private final CompletableFuture<Void> result;

    /** The work ended on its own while its lease was held: the run must end as it did ({@link #ownFailure}). */
    private boolean endedOnItsOwn;

    private Exception ownFailure;
    /** The user cancelled the run, or its table closed: it ends that way, whatever the work did. */
    private boolean stopped;
    /** The run's end was checked. */
    private boolean checked;

    /** Starts the run on {@code process}'s table. */
    SimLeaderRun(
            SimProcess process,
            String name,
            Duration lease,
            Random random,
            LongSupplier now,
            Consumer<String> violation,
            Counts counts) {
        this.process = process;
        this.name = name;
        this.leaseNanos = lease.toNanos();
        this.random = random;
        this.now = now;
        this.violation = violation;
        this.counts = counts;
        this.result = process.table.runAsLeaderAsync(name, lease, this::term);
    }

    String name() {
        return name;
    }

    /** The run has ended and its end was checked: nothing of it is left to follow. */
    boolean over() {
        return checked;
    }

    boolean running() {
        return !result.isDone();
    }

    /** A term's work, called by the real {@code LeaderRun}. */
    private CompletionStage<Void> term(Lease lease) {
        String what = process + ": runAsLeaderAsync of " + name + " called a term's work ";
        if (process.runningCompletions == 0) {
            violation.accept(what + "off the completion executor: " + lease);
        }
        if (Lease.current().orElse(null) != lease) {
            violation.accept(what + "without its lease bound as the current one: " + lease);
        }
        if (!lease.isHeld()) {
            violation.accept(what + "under a lease that is not held: " + lease);
        }
        if (endedOnItsOwn) {
            violation.accept(what + "after the work had ended on its own: " + lease);
        }
        for (TermWork earlier : terms) {
            if (!earlier.stage.isDone()) {
                violation.accept(
                        what + "while the last term's work runs on: " + lease + ", the last under " + earlier.lease);
            }
        }
        process.handed(lease);
        counts.terms++;
        TermWork work = new TermWork(
                lease, now.getAsLong() + (long) (random.nextDouble() * leaseNanos * 3), random.nextInt(4) == 0);
        terms.add(work);
        work.stage.whenComplete((value, error) -> {
            if (work.stage.isCancelled() && lease.end().isPresent()) {
                counts.cancelledByTheirLease++;
            }
        });
        return work.stage;
    }

    /** The user ends the run: the work's stage must be cancelled before the cancel returns. */
    void cancel() {
        stopped = true;
        result.cancel(true);
        for (TermWork work : terms) {
            if (!work.stage.isDone()) {
                violation.accept(process + ": cancelling runAsLeaderAsync of " + name
                        + " left a term's work running under " + work.lease);
            }
        }
    }

    /** The process's table was closed: the run must have ended, and its work with it. */
    void closed() {
        stopped = true;
        if (!result.isDone()) {
            violation.accept(process + ": runAsLeaderAsync of " + name + " still runs after close()");
        }
        for (TermWork work : terms) {
            if (!work.stage.isDone()) {
                violation.accept(process + ": a term's work of " + name + " still runs after close(): " + work.lease);
            }
        }
    }

    /**
     * Ends the work whose time is up, as user code would on a thread of its own, while its lease has not ended (a
     * lease that ended has cancelled its work, or the stop bound reports it).
     */
    void finishWork() {
        for (TermWork work : List.copyOf(terms)) {
            if (work.stage.isDone()
                    || now.getAsLong() - work.untilNanos < 0
                    || work.lease.end().isPresent()) {
                continue;
            }
            Exception failure = work.fails ? new IllegalStateException("the leader's work failed (simulated)") : null;
            if (!stopped) {
                endedOnItsOwn = true;
                ownFailure = failure;
            }
            if (failure != null) {
                work.stage.completeExceptionally(failure);
            } else {
                work.stage.complete(null);
            }
        }
    }

    /** Checks the stop bound of each term's work, and the run's end once it has come. */
    void check(Supplier<String> when) {
        for (TermWork work : terms) {
            if (work.stage.isDone()) {
                continue;
            }
            long overdue = work.stop.overdueNanos(work.lease, process.timerRuns(), now.getAsLong());
            if (overdue > 0) {
                violation.accept(process + ": the work of a term of " + name + " under " + work.lease + " (ended: "
                        + work.lease.end().orElse(null) + ") was not cancelled " + overdue / 1_000_000
                        + " ms after its lease ended " + when.get());
            }
        }
        if (checked || !result.isDone()) {
            return;
        }
        checked = true;
        if (!endedOnItsOwn || stopped) {
            return;
        }
        for (TermWork work : terms) {
            if (work.lease.isHeld()) {
                violation.accept(process + ": runAsLeaderAsync of " + name + " completed with its lease still held: "
                        + work.lease);
            }
        }
        String outcome = outcome();
        String expected = ownFailure == null ? "completed" : "failed: " + ownFailure.getMessage();
        if (!outcome.equals(expected)) {
            violation.accept(process + ": runAsLeaderAsync of " + name + " " + outcome + " " + when.get()
                    + ", though its work " + expected + " on its own");
        }
    }

    private String outcome() {
        if (result.isCancelled()) {
            return "was cancelled";
        }
        return result.handle((value, error) -> error == null ? "completed" : "failed: " + error.getMessage())
                .join();
    }
}
