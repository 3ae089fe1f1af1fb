package io.locktable.bench;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** LockTable with its defaults (two scheduler threads) and one lease duration for every lock. */
public final class OursDriver implements LockDriver<Lease> {

    private final LockTable locks;
    private final Duration lease;

    /**
     * Builds a LockTable over a table keyed by {@value Tables#OURS_KEY}.
     *
     * @param client the client
     * @param table the table
     * @param lease the lease of every lock
     * @param listeners listeners to add
     */
    public OursDriver(DynamoDbClient client, String table, Duration lease, LockTableListener... listeners) {
        LockTable.Builder builder = LockTable.builder(client, table, Tables.OURS_KEY);
        for (LockTableListener listener : listeners) {
            builder.listener(listener);
        }
        this.locks = builder.build();
        this.lease = lease;
    }

    /**
     * The lock table, for figures only it has.
     *
     * @return the lock table
     */
    public LockTable locks() {
        return locks;
    }

    @Override
    public String label() {
        return "LockTable, lease " + Format.duration(lease);
    }

    @Override
    public Lease tryAcquire(String name) {
        return locks.tryAcquire(name, lease).orElse(null);
    }

    @Override
    public Lease acquire(String name, Duration maxWait) throws InterruptedException {
        try {
            return locks.acquire(name, lease, maxWait);
        } catch (TimeoutException e) {
            return null;
        }
    }

    @Override
    public void release(Lease held) {
        held.release();
    }

    @Override
    public boolean isHeld(Lease held) {
        return held.isHeld();
    }

    @Override
    public void close() {
        locks.close();
    }
}
