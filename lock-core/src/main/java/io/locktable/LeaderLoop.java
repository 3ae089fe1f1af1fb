package io.locktable;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of {@link LockTable#runAsLeader}, or the thread of a {@link Leadership}: acquires on the calling thread,
 * runs each term's work on a thread of its own (or, without work, just waits for the term's end), interrupts it when
 * the lease ends, and contends again. Transient acquire errors are counted and retried after a third of the lease.
 */
final class LeaderLoop {

    /** Hears when terms start and end, and may keep the loop out of the election for a while; on the loop's thread. */
    interface Terms {
        /** Before each acquire: may wait (a step-down's cool-down), and throws if interrupted meanwhile. */
        default void beforeContending() throws InterruptedException {}

        /** A term starts with this lease; false to hand it back at once and contend again (a step-down came). */
        boolean started(Lease lease);

        void ended(Lease lease);

        /** After a term whose lease was released from outside: true to contend again, false to end the loop. */
        default boolean contendAfterRelease() {
            return false;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final LockTable table;
    private final String name;
    private final Duration leaseDuration;
    private final @Nullable LeaderWork work;
    private final Terms terms;
    private final LockTableListener listener;
    private final LockClock clock;
    private int failuresInRow;

    LeaderLoop(
            LockTable table,
            String name,
            Duration leaseDuration,
            @Nullable LeaderWork work,
            Terms terms,
            LockTableListener listener,
            LockClock clock) {
        this.terms = terms;
        this.table = table;
        this.name = name;
        this.leaseDuration = leaseDuration;
        this.work = work;
        this.listener = listener;
        this.clock = clock;
    }

    void run() throws Exception {
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("leadership of lock '" + name + "' was interrupted");
            }
            terms.beforeContending();
            Lease lease;
            try {
                lease = table.acquireForLeader(name, leaseDuration, this::answered);
            } catch (RuntimeException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException("leadership of lock '" + name + "' was interrupted");
                }
                if (!Errors.isTransient(e)) {
                    throw e;
                }
                failed(e);
                clock.sleep(Timing.leaderRetry(leaseDuration));
                continue;
            }
            if (!lease.isHeld()) {
                continue; // answered after a whole lease: no term
            }
            if (!terms.started(lease)) {
                lease.release(); // a step-down came while the acquire was on its way
                continue;
            }
            boolean over;
            try {
                over = new Term(lease).run();
            } finally {
                terms.ended(lease);
            }
            if (over && !terms.contendAfterRelease()) {
                return;
            }
        }
    }

    private void answered() {
        if (failuresInRow > 0) {
            log.info(
                    "Leadership of lock '{}' in table '{}': DynamoDB answers again after {} failed acquires",
                    name,
                    table.tableName(),
                    failuresInRow);
            failuresInRow = 0;
        }
    }

    private void failed(RuntimeException error) {
        failuresInRow++;
        if (failuresInRow == 1) {
            log.warn(
                    "Leadership of lock '{}' in table '{}': acquire failed, trying again every {} until it works: {}",
                    name,
                    table.tableName(),
                    Duration.ofNanos(Timing.leaderRetry(leaseDuration)),
                    error.toString());
        } else {
            log.debug(
                    "Leadership of lock '{}': acquire failed again ({} in a row): {}",
                    name,
                    failuresInRow,
                    error.toString());
        }
        listener.onLeadershipError(name, error, failuresInRow);
    }

    /** One term: the work on its own thread, interrupted when the lease ends. */
    private final class Term {
        private final Lease lease;
        private final AtomicBoolean over = new AtomicBoolean();
        private final AtomicBoolean interrupted = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Term(Lease lease) {
            this.lease = lease;
        }

        /** Runs the term; true when the leadership is over (the work ended on its own), false to contend again. */
        boolean run() throws Exception {
            if (work == null) {
                return holdUntilEnded();
            }
            Thread worker = new Thread(this::lead, "locktable-leader-" + name);
            worker.setDaemon(Thread.currentThread().isDaemon());
            worker.start();
            // after start(): an interrupt of a thread not yet started is lost. Run by the path that ends the lease
            // (the timer, a renewal, a release), not by whenEnded(), whose callbacks wait behind listeners
            lease.onEnd(() -> {
                if (!over.get() && interrupted.compareAndSet(false, true)) {
                    worker.interrupt();
                }
            });
            try {
                worker.join();
            } catch (InterruptedException e) {
                over.set(true);
                worker.interrupt();
                awaitStop(worker);
                lease.release();
                throw e;
            }
            LeaseEnd end = lease.end().orElse(null);
            if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
                log.info(
                        "Leadership of lock '{}' ended: lease {} (fencing token {}); contending again",
                        name,
                        end,
                        lease.fencingToken());
                return false;
            }
            over.set(true);
            lease.release();
            Throwable thrown = failure.get();
            if (end == LeaseEnd.CLOSED && thrown != null) {
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
            if (thrown != null) {
                throw new IllegalStateException(thrown);
            }
            return true;
        }

        /** A term without work: waits for the lease to end, or for the caller's interrupt to release it. */
        private boolean holdUntilEnded() throws InterruptedException {
            CountDownLatch ended = new CountDownLatch(1);
            lease.onEnd(ended::countDown); // from the path that ends it, not behind listener callbacks
            try {
                ended.await();
            } catch (InterruptedException e) {
                lease.release();
                throw e;
            }
            LeaseEnd end = lease.end().orElse(LeaseEnd.EXPIRED);
            if (end == LeaseEnd.LOST || end == LeaseEnd.EXPIRED) {
                log.info("Leadership of lock '{}' ended: lease {}; contending again", name, end);
                return false;
            }
            return true; // released or closed from outside: the leadership is over
        }

        private void lead() {
            try {
                lease.callAsCurrent(() -> {
                    java.util.Objects.requireNonNull(work).lead(lease);
                    return null;
                });
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        /** After the caller's interrupt: waits for the work to stop, at most one lease. */
        private void awaitStop(Thread worker) {
            long deadline = System.nanoTime() + leaseDuration.toNanos();
            while (worker.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    log.warn(
                            "Work of the leader of lock '{}' did not stop within {} of its interrupt",
                            name,
                            leaseDuration);
                    break;
                }
                try {
                    worker.join(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    // the caller's interrupt is being answered already: keep waiting for the work
                }
            }
        }
    }
}
