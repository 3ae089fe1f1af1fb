package io.locktable;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls every listener its source names at the time of each event, on the table's event thread: in the order the
 * events happened, never on a thread that renews or expires leases (a slow listener delays no renewal), and so that
 * one that throws, even an {@link Error}, neither stops the others nor the protocol.
 */
final class Listeners implements LockTableListener {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final Supplier<? extends Iterable<? extends LockTableListener>> listeners;
    private final Executor events;
    /** The table whose event the current thread runs, if any. */
    private static final ThreadLocal<@Nullable Listeners> DISPATCHING = new ThreadLocal<>();

    /**
     * @param events runs the calls one at a time in the order given: one thread of the table's, or the calling
     *     thread for a clock a test drives by hand
     */
    Listeners(Supplier<? extends Iterable<? extends LockTableListener>> listeners, Executor events) {
        this.listeners = listeners;
        this.events = events;
    }

    /** Runs an action on the event thread, after the events announced before it. */
    void dispatch(Runnable action) {
        try {
            events.execute(marked(() -> {
                try {
                    action.run();
                } catch (Throwable e) { // a listener's AssertionError must not end the event thread's work
                    log.warn("A callback of a lease threw; ignored", e);
                }
            }));
        } catch (RejectedExecutionException e) {
            // the table is closed: its events end with the releases of close()
        }
    }

    /**
     * Runs an action on the event thread, after the events announced before it, or on the calling thread once the
     * table is closed and its event thread gone: for what must happen whatever, such as a stopped election's end.
     */
    void dispatchOrRun(Runnable action) {
        try {
            events.execute(marked(action));
        } catch (RejectedExecutionException e) {
            action.run();
        }
    }

    /**
     * Whether the calling thread runs one of this table's events now (a listener, a term listener, a {@code
     * whenEnded} dependent): what it would wait for on the event thread cannot come before it returns.
     */
    boolean onEventThread() {
        return DISPATCHING.get() == this;
    }

    private Runnable marked(Runnable action) {
        return () -> {
            DISPATCHING.set(this);
            try {
                action.run();
            } finally {
                DISPATCHING.remove();
            }
        };
    }

    private void each(Consumer<LockTableListener> call) {
        each(CallerContext.NONE, call);
    }

    /**
     * Calls every listener named now on the event thread with the caller's context current, restored after the last
     * one. With none named, nothing is handed to the event thread: waking it costs more processor time than the rest
     * of an acquire's own work.
     */
    private void each(CallerContext caller, Consumer<LockTableListener> call) {
        Iterable<? extends LockTableListener> named = listeners.get();
        if (!named.iterator().hasNext()) {
            return;
        }
        dispatch(caller.around(() -> {
            for (LockTableListener listener : named) {
                try {
                    call.accept(listener);
                } catch (Throwable e) {
                    log.warn("LockTableListener {} threw; ignored", listener, e);
                }
            }
        }));
    }

    @Override
    public void onAcquired(Lease lease, boolean tookOver) {
        each(l -> l.onAcquired(lease, tookOver));
    }

    @Override
    public void onBusy(String name, LockRecord holder) {
        each(l -> l.onBusy(name, holder));
    }

    @Override
    public void onAcquireStarted(String name, long acquireId) {
        onAcquireStarted(name, acquireId, CallerContext.NONE);
    }

    /** {@link #onAcquireStarted(String, long)} heard with the context of the acquire's caller current. */
    void onAcquireStarted(String name, long acquireId, CallerContext caller) {
        each(caller, l -> l.onAcquireStarted(name, acquireId));
    }

    @Override
    public void onAcquireFinished(
            String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
        onAcquireFinished(name, acquireId, outcome, elapsed, waited, CallerContext.NONE);
    }

    /** {@link #onAcquireFinished(String, long, AcquireOutcome, Duration, boolean)} with the caller's context current. */
    void onAcquireFinished(
            String name,
            long acquireId,
            AcquireOutcome outcome,
            Duration elapsed,
            boolean waited,
            CallerContext caller) {
        each(caller, l -> l.onAcquireFinished(name, acquireId, outcome, elapsed, waited));
    }

    @Override
    public void onRenewed(Lease lease) {
        each(l -> l.onRenewed(lease));
    }

    @Override
    public void onRenewalFailed(Lease lease, Exception error) {
        each(l -> l.onRenewalFailed(lease, error));
    }

    @Override
    public void onRenewalLate(Lease lease, Duration lateness) {
        each(l -> l.onRenewalLate(lease, lateness));
    }

    @Override
    public void onLost(Lease lease, LeaseEnd reason) {
        each(l -> l.onLost(lease, reason));
    }

    @Override
    public void onReleased(Lease lease) {
        each(l -> l.onReleased(lease));
    }

    @Override
    public void onFenceRegressed(String name, long highestSeen, long fencingToken) {
        each(l -> l.onFenceRegressed(name, highestSeen, fencingToken));
    }

    @Override
    public void onRequestSucceeded(String name) {
        each(l -> l.onRequestSucceeded(name));
    }

    @Override
    public void onRequestFailed(String name, Exception error) {
        each(l -> l.onRequestFailed(name, error));
    }

    @Override
    public void onLeadershipError(String name, Exception error, int failuresInRow) {
        each(l -> l.onLeadershipError(name, error, failuresInRow));
    }
}
