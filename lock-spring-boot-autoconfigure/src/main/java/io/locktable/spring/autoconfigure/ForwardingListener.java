package io.locktable.spring.autoconfigure;

import io.locktable.AcquireOutcome;
import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockRecord;
import io.locktable.LockTableListener;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Forwards the events of the auto-configured lock table to every {@link LockTableListener} bean, looked up at each
 * event: a listener bean may itself depend on the lock table (the leader runner, a meter binder) without a cycle.
 */
final class ForwardingListener implements LockTableListener {

    private static final Logger log = LoggerFactory.getLogger(ForwardingListener.class);

    private final ObjectProvider<LockTableListener> listeners;

    ForwardingListener(ObjectProvider<LockTableListener> listeners) {
        this.listeners = listeners;
    }

    private void each(Consumer<LockTableListener> event) {
        try {
            listeners.orderedStream().forEach(listener -> {
                try {
                    event.accept(listener);
                } catch (RuntimeException e) {
                    log.warn("LockTableListener {} failed", listener, e);
                }
            });
        } catch (BeansException e) {
            // the context is closing (the lock table releases its leases after its listeners were destroyed)
            log.debug("LockTableListener beans not available: {}", e.toString());
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
