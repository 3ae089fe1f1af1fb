package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.AcquireLockOptions;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClientOptions;
import com.amazonaws.services.dynamodbv2.LockItem;
import com.amazonaws.services.dynamodbv2.model.LockNotGrantedException;
import io.locktable.Lease;
import io.locktable.LockTable;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One of the two libraries as the scenarios use it: acquire, wait, release. LockTable runs with its defaults; the
 * AWS DynamoDB Lock Client as its README advises (background heartbeat, items deleted on release, refresh period
 * 1 s), either at its own defaults or at LockTable's setting for a lease (that lease, a heartbeat every third).
 */
abstract class Lib implements AutoCloseable {

    /** The peer's defaults, as its options builder sets them. */
    static final Duration PEER_LEASE = Duration.ofSeconds(20);

    static final Duration PEER_HEARTBEAT = Duration.ofSeconds(5);

    /** How often the peer's waiting acquire reads, at its default. */
    static final Duration PEER_REFRESH = Duration.ofSeconds(1);

    final String label;
    final Duration lease;

    private Lib(String label, Duration lease) {
        this.label = label;
        this.lease = lease;
    }

    /**
     * Builds a library by kind: {@code locktable}, {@code peer} (LockTable's setting) or {@code peer-defaults}.
     */
    static Lib of(String kind, DynamoDbClient client, String table, Duration lease) {
        return switch (kind) {
            case "locktable" -> locktable(client, table, lease, b -> b);
            case "peer" -> peer(client, table, lease);
            case "peer-defaults" -> peerDefaults(client, table);
            default -> throw new IllegalArgumentException("unknown library " + kind);
        };
    }

    static Lib locktable(DynamoDbClient client, String table, Duration lease, UnaryOperator<LockTable.Builder> setup) {
        return new Ours(
                setup.apply(LockTable.builder(client, table, Rig.OURS_KEY)).build(), lease);
    }

    static Lib peer(DynamoDbClient client, String table, Duration lease) {
        Duration heartbeat = lease.dividedBy(3);
        return new Peer(
                AmazonDynamoDBLockClientOptions.builder(client, table)
                        .withTimeUnit(TimeUnit.MILLISECONDS)
                        .withLeaseDuration(lease.toMillis())
                        .withHeartbeatPeriod(heartbeat.toMillis())
                        .build(),
                "Lock Client, lease " + Stats.duration(lease) + ", heartbeat " + Stats.duration(heartbeat),
                lease);
    }

    static Lib peerDefaults(DynamoDbClient client, String table) {
        return new Peer(
                AmazonDynamoDBLockClientOptions.builder(client, table).build(),
                "Lock Client defaults (lease 20 s, heartbeat 5 s)",
                PEER_LEASE);
    }

    /** The lock item's partition key value for a lock name, as a request counter sees it. */
    abstract String key(String name);

    /** Acquires a free lock; null if it is held. */
    abstract Object tryAcquire(String name);

    /** Acquires, waiting for the holder to release or to stop renewing; null if the wait ran out. */
    abstract Object acquire(String name, Duration maxWait) throws InterruptedException;

    abstract void release(Object held);

    abstract boolean isHeld(Object held);

    /** Stops the library's threads; does not close the client. */
    @Override
    public abstract void close();

    Object mustAcquire(String name) {
        Object held = tryAcquire(name);
        if (held == null) {
            throw new IllegalStateException(label + ": free lock " + name + " was busy");
        }
        return held;
    }

    private static final class Ours extends Lib {
        final LockTable locks;

        Ours(LockTable locks, Duration lease) {
            super("LockTable, lease " + Stats.duration(lease), lease);
            this.locks = locks;
        }

        @Override
        String key(String name) {
            return "LOCK#" + name;
        }

        @Override
        Object tryAcquire(String name) {
            return locks.tryAcquire(name, lease).orElse(null);
        }

        @Override
        Object acquire(String name, Duration maxWait) throws InterruptedException {
            try {
                return locks.acquire(name, lease, maxWait);
            } catch (TimeoutException e) {
                return null;
            }
        }

        @Override
        void release(Object held) {
            ((Lease) held).release();
        }

        @Override
        boolean isHeld(Object held) {
            return ((Lease) held).isHeld();
        }

        @Override
        public void close() {
            locks.close();
        }
    }

    private static final class Peer extends Lib {
        final AmazonDynamoDBLockClient client;

        Peer(AmazonDynamoDBLockClientOptions options, String label, Duration lease) {
            super(label, lease);
            this.client = new AmazonDynamoDBLockClient(options);
        }

        @Override
        String key(String name) {
            return name;
        }

        @Override
        Object tryAcquire(String name) {
            try {
                return client.tryAcquireLock(AcquireLockOptions.builder(name).build())
                        .orElse(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }

        @Override
        Object acquire(String name, Duration maxWait) throws InterruptedException {
            try {
                return client.acquireLock(AcquireLockOptions.builder(name)
                        .withAdditionalTimeToWaitForLock(maxWait.toMillis())
                        .withTimeUnit(TimeUnit.MILLISECONDS)
                        .build());
            } catch (LockNotGrantedException e) {
                return null;
            }
        }

        @Override
        void release(Object held) {
            client.releaseLock((LockItem) held);
        }

        @Override
        boolean isHeld(Object held) {
            LockItem item = (LockItem) held;
            return client.hasLock(item.getPartitionKey(), item.getSortKey());
        }

        @Override
        public void close() {
            try {
                client.close();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
