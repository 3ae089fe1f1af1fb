package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.AcquireLockOptions;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClientOptions;
import com.amazonaws.services.dynamodbv2.LockItem;
import com.amazonaws.services.dynamodbv2.model.LockNotGrantedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The AWS DynamoDB Lock Client used as its README advises: the options builder, the background heartbeat thread
 * (on by default), {@code tryAcquireLock}/{@code acquireLock} with default {@link AcquireLockOptions} (refresh period
 * 1 s, items deleted on release), {@code releaseLock}.
 */
public final class PeerDriver implements LockDriver<LockItem> {

    /** The peer's own defaults, as its options builder sets them. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(20);

    /** The peer's default heartbeat period. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);

    private final AmazonDynamoDBLockClient client;
    private final String label;
    private final Duration lease;
    private final Duration heartbeat;

    private PeerDriver(AmazonDynamoDBLockClient client, String label, Duration lease, Duration heartbeat) {
        this.client = client;
        this.label = label;
        this.lease = lease;
        this.heartbeat = heartbeat;
    }

    /**
     * The peer with every option at its default: lease 20 s, heartbeat every 5 s.
     *
     * @param dynamoDb the client
     * @param table the table, keyed by {@value Tables#PEER_KEY}
     * @return the driver
     */
    public static PeerDriver defaults(DynamoDbClient dynamoDb, String table) {
        AmazonDynamoDBLockClient client = new AmazonDynamoDBLockClient(
                AmazonDynamoDBLockClientOptions.builder(dynamoDb, table).build());
        return new PeerDriver(
                client, "Lock Client defaults (lease 20 s, heartbeat 5 s)", DEFAULT_LEASE, DEFAULT_HEARTBEAT);
    }

    /**
     * The peer with LockTable's settings for a lease: that lease, a heartbeat every third of it.
     *
     * @param dynamoDb the client
     * @param table the table, keyed by {@value Tables#PEER_KEY}
     * @param lease the lease
     * @return the driver
     */
    public static PeerDriver sameAsOurs(DynamoDbClient dynamoDb, String table, Duration lease) {
        Duration heartbeat = lease.dividedBy(3);
        AmazonDynamoDBLockClient client =
                new AmazonDynamoDBLockClient(AmazonDynamoDBLockClientOptions.builder(dynamoDb, table)
                        .withTimeUnit(TimeUnit.MILLISECONDS)
                        .withLeaseDuration(lease.toMillis())
                        .withHeartbeatPeriod(heartbeat.toMillis())
                        .build());
        return new PeerDriver(
                client,
                "Lock Client, lease " + Format.duration(lease) + ", heartbeat " + Format.duration(heartbeat),
                lease,
                heartbeat);
    }

    /**
     * The peer's client, for figures only it has.
     *
     * @return the client
     */
    public AmazonDynamoDBLockClient client() {
        return client;
    }

    /**
     * The lease this peer writes.
     *
     * @return the lease
     */
    public Duration lease() {
        return lease;
    }

    /**
     * The heartbeat period of this peer.
     *
     * @return the period
     */
    public Duration heartbeat() {
        return heartbeat;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public LockItem tryAcquire(String name) {
        try {
            Optional<LockItem> item =
                    client.tryAcquireLock(AcquireLockOptions.builder(name).build());
            return item.orElse(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public LockItem acquire(String name, Duration maxWait) throws InterruptedException {
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
    public void release(LockItem held) {
        client.releaseLock(held);
    }

    @Override
    public boolean isHeld(LockItem held) {
        return client.hasLock(held.getPartitionKey(), held.getSortKey());
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
