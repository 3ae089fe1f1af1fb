package io.locktable.spring.autoconfigure;

import io.locktable.LockTableListener;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The {@link LockTableListener} beans of the context, looked up at each event by {@link
 * LockTableListener#forwardingTo}: a listener bean may itself depend on the lock table (the leader runner, a meter
 * binder) without a cycle.
 */
final class ListenerBeans implements Supplier<List<LockTableListener>> {

    private static final Logger log = LoggerFactory.getLogger(ListenerBeans.class);

    private final ObjectProvider<LockTableListener> listeners;

    ListenerBeans(ObjectProvider<LockTableListener> listeners) {
        this.listeners = listeners;
    }

    @Override
    public List<LockTableListener> get() {
        try {
            return listeners.orderedStream().toList();
        } catch (BeansException e) {
            // the context is closing (the lock table releases its leases after its listeners were destroyed)
            log.debug("LockTableListener beans not available: {}", e.toString());
            return List.of();
        }
    }
}
