package io.locktable;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls every listener its source names at the time of each event, so that one that throws neither stops the others
 * nor the protocol.
 */
final class Listeners implements LockTableListener {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final Supplier<? extends Iterable<? extends LockTableListener>> listeners;

    Listeners(Supplier<? extends Iterable<? extends LockTableListener>> listeners) {
        this.listeners = listeners;
    }

    private void each(Consumer<LockTableListener> call) {
        for (LockTableListener listener : listeners.get()) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("LockTableListener {} threw; ignored", listener, e);
            }
        }
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
    public void onAcquireFinished(String name, AcquireOutcome outcome, Duration elapsed) {
        each(l -> l.onAcquireFinished(name, outcome, elapsed));
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
