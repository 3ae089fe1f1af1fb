package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Checks the auto-configured lock table once every singleton is created, before any lifecycle bean starts (the
 * leader runner, schedulers, the web server): no bean creation sends a request, and a missing or unfit table still
 * fails startup before anything runs, with a message naming the property.
 */
final class LockTableStartupCheck implements SmartInitializingSingleton {

    private final LockTableClient client;
    private final LockTable locks;
    private final LockTableProperties properties;

    LockTableStartupCheck(LockTableClient client, LockTable locks, LockTableProperties properties) {
        this.client = client;
        this.locks = locks;
        this.properties = properties;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LockTableFactory.prepare(client, locks, properties);
    }
}
