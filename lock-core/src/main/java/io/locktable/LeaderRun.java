package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of {@link LockTable#runAsLeader}: a {@link Leadership} elects, and the caller's thread runs each term's
 * work on a thread of its own ({@code locktable-leader-<name>}, the user's code never runs on the table's threads),
 * interrupted by the path that ends the term's lease. The election, its retries and its step-downs are the
 * leadership's: one algorithm, two entry points.
 */
final class LeaderRun {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final LockTable table;
    private final String name;
    private final Duration leaseDuration;
    private final LeaderWork work;
    /** Term starts, and a mark that the election stopped. */
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    private final AtomicReference<@Nullable Term> term = new AtomicReference<>();
    private static final Object STOPPED = new Object();

    LeaderRun(LockTable table, String name, Duration leaseDuration, LeaderWork work) {
        this.table = table;
        this.name = name;
        this.leaseDuration = leaseDuration;
        this.work = work;
    }

    /** The leadership's terms, heard at once on the thread that starts or ends them. */
    Leadership.Terms terms() {
        return new Leadership.Terms() {
            @Override
            public void started(Lease lease) {
                events.add(lease);
            }

            @Override
            public void ended(Lease lease) {
                Term running = term.get();
                if (running != null && running.lease == lease) {
                    running.interrupt();
                }
            }
        };
    }

    void run(Leadership leadership) throws Exception {
        leadership.whenStopped().whenComplete((done, error) -> events.add(STOPPED));
        try {
            while (true) {
                Object next = events.take(); // the caller's interrupt ends the leadership (finally)
                if (next == STOPPED) {
                    rethrowWhyItStopped(leadership.whenStopped());
                    return;
                }
                Lease lease = (Lease) next;
                if (!lease.isHeld()) {
                    continue; // its term ended before the caller saw it start
                }
                if (new Term(lease).run()) {
                    return;
                }
            }
        } finally {
            leadership.close();
        }
    }

    private void rethrowWhyItStopped(CompletableFuture<Void> stopped) throws Exception {
        try {
            stopped.get();
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
        if (table.isClosed()) {
            throw new IllegalStateException(
                    "lock table " + table.tableName() + " was closed while leading lock '" + name + "'");
        }
    }

    /** One term: the work on its own thread, interrupted when the lease ends. */
    private final class Term {
        private final Lease lease;
        private final AtomicBoolean over = new AtomicBoolean();
        private final AtomicBoolean interrupted = new AtomicBoolean();
        private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        private volatile @Nullable Thread worker;

        Term(Lease lease) {
            this.lease = lease;
        }

        void interrupt() {
            Thread thread = worker;
            if (thread != null && !over.get() && interrupted.compareAndSet(false, true)) {
                thread.interrupt();
            }
        }

        /** Runs the term; true when the leadership is over (the work ended on its own), false to contend again. */
        boolean run() throws Exception {
            Thread thread = new Thread(this::lead, "locktable-leader-" + name);
            thread.setDaemon(Thread.currentThread().isDaemon());
            worker = thread;
            thread.start();
            term.set(this); // after start(): an interrupt of a thread not yet started is lost
            if (!lease.isLive()) {
                interrupt(); // ended before the hook could see this term
            }
            try {
                thread.join();
            } catch (InterruptedException e) {
                over.set(true);
                thread.interrupt();
                awaitStop(thread);
                lease.release();
                throw e;
            } finally {
                term.set(null);
            }
            LeaseEnd end = lease.end().orElse(null);
            if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
                return false; // the leadership contends again by itself
            }
            over.set(true);
            lease.release();
            Throwable thrown = failure.get();
            if ((end == LeaseEnd.CLOSED || table.isClosed()) && thrown != null) {
                // the table closed under the term and the work stopped for it: not the caller's interrupt
                throw new IllegalStateException(
                        "lock table " + table.tableName() + " was closed while leading lock '" + name + "'", thrown);
            }
            if (thrown instanceof Exception exception) {
                throw exception;
            }
            if (thrown instanceof Error error) {
                throw error;
            }
            return true;
        }

        private void lead() {
            try {
                lease.callAsCurrent(() -> {
                    Objects.requireNonNull(work).lead(lease);
                    return null;
                });
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        /** After the caller's interrupt: waits for the work to stop, at most one lease. */
        private void awaitStop(Thread thread) {
            long deadline = System.nanoTime() + leaseDuration.toNanos();
            while (thread.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    log.warn(
                            "Work of the leader of lock '{}' did not stop within {} of its interrupt",
                            name,
                            leaseDuration);
                    break;
                }
                try {
                    thread.join(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    // the caller's interrupt is being answered already: keep waiting for the work
                }
            }
        }
    }
}
