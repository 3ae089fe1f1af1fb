package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.AcquireLockOptions;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClientOptions;
import com.amazonaws.services.dynamodbv2.LockItem;
import com.amazonaws.services.dynamodbv2.model.LockCurrentlyUnavailableException;
import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Each library's own cost per operation, measured alone: both over the same SDK {@code DynamoDbClient}, whose HTTP
 * client answers from memory ({@link CannedHttpClient}), so no engine and no network takes part. One thread; JMH's
 * average time per operation (with the canned answers, the thread's processor time: {@link ThreadCpuProfiler} reports
 * it beside) and {@code -prof gc}'s bytes allocated per operation.
 *
 * <ul>
 *   <li>{@code cycle}: acquire + release of a free lock (LockTable: {@code tryAcquire} + {@code release()}, 2
 *       UpdateItems; the Lock Client: {@code tryAcquireLock} + {@code releaseLock} at its defaults, GetItem, PutItem,
 *       DeleteItem).
 *   <li>{@code renewal}: one renewal of a held lease (LockTable: the keeper's renewal step, which its workers run,
 *       called on the benchmark thread; the Lock Client: {@code sendHeartbeat}), an UpdateItem each.
 *   <li>{@code poll}: one attempt on a lock another process holds and renews (LockTable: {@code tryAcquire}, which
 *       reads first once it has seen the holder; the Lock Client: {@code tryAcquireLock} with {@code
 *       shouldSkipBlockingWait}, its one attempt that does not sleep), a GetItem each.
 *   <li>{@code sdk*}: the same requests built by hand once and sent through the same client: the SDK's share.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgs = {"-Xms512m", "-Xmx512m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 4, time = 2)
public class Alone {

    /** Both libraries' lease, as in {@link Cycle}: the Lock Client's default. */
    static final Duration LEASE = Cycle.LEASE;

    static final String NAME = "alone";
    static final String OURS_TABLE = "canned-ours";
    static final String PEER_TABLE = "canned-peer";

    /** A client as {@link Rig#client} builds them, over the canned HTTP client. */
    static DynamoDbClient client(CannedHttpClient http) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://localhost:8000"))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .httpClient(http)
                .build();
    }

    /** LockTable at its defaults; the test counts the fence regressions it reports (the canned fence must only rise). */
    @State(Scope.Benchmark)
    public static class Ours {
        final CannedHttpClient http;
        final DynamoDbClient client;
        final AtomicLong fenceRegressions = new AtomicLong();
        /** Set by the test: a listener counts fence regressions (the benchmark runs LockTable without one). */
        boolean watchFences;

        LockTable locks;

        public Ours() {
            this(CannedHttpClient.free());
        }

        Ours(CannedHttpClient http) {
            this.http = http;
            this.client = client(http);
        }

        @Setup(Level.Trial)
        public void setUp() {
            LockTable.Builder builder = LockTable.builder(client, OURS_TABLE, Rig.OURS_KEY);
            if (watchFences) {
                builder.listener(new LockTableListener() {
                    @Override
                    public void onFenceRegressed(String name, long highestSeen, long fencingToken) {
                        fenceRegressions.incrementAndGet();
                    }
                });
            }
            locks = builder.build();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            locks.close();
            client.close();
            if (fenceRegressions.get() > 0) {
                throw new IllegalStateException(fenceRegressions + " fence regressions");
            }
        }

        Lease cycle() {
            Lease lease = locks.tryAcquire(NAME, LEASE).orElseThrow();
            lease.release();
            return lease;
        }
    }

    /** The Lock Client at its defaults, as {@link Lib#peerDefaults} builds it. */
    @State(Scope.Benchmark)
    public static class Peer {
        final CannedHttpClient http;
        final DynamoDbClient client;
        AmazonDynamoDBLockClient locks;

        public Peer() {
            this(CannedHttpClient.free());
        }

        Peer(CannedHttpClient http) {
            this.http = http;
            this.client = client(http);
        }

        @Setup(Level.Trial)
        public void setUp() {
            locks = new AmazonDynamoDBLockClient(options(AmazonDynamoDBLockClientOptions.builder(client, PEER_TABLE))
                    .build());
        }

        /** The Lock Client's options: its defaults. */
        AmazonDynamoDBLockClientOptions.AmazonDynamoDBLockClientOptionsBuilder options(
                AmazonDynamoDBLockClientOptions.AmazonDynamoDBLockClientOptionsBuilder defaults) {
            return defaults;
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            locks.close();
            client.close();
        }

        LockItem cycle() throws InterruptedException {
            LockItem item = locks.tryAcquireLock(
                            AcquireLockOptions.builder(NAME).build())
                    .orElseThrow();
            locks.releaseLock(item);
            return item;
        }
    }

    /** LockTable holding one lease, renewed by the keeper's renewal step on the caller's thread. */
    @State(Scope.Benchmark)
    public static class OursHolding extends Ours {
        private static final MethodHandle RENEW;
        private static final MethodHandle KEEPER;

        static {
            try {
                Class<?> keeperClass = Class.forName("io.locktable.LeaseKeeper");
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(keeperClass, MethodHandles.lookup());
                RENEW = lookup.findVirtual(
                        keeperClass, "renew", MethodType.methodType(void.class, Lease.class, long.class));
                KEEPER = MethodHandles.privateLookupIn(Lease.class, MethodHandles.lookup())
                        .findGetter(Lease.class, "keeper", keeperClass);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        Lease lease;
        Object keeper;

        @Setup(Level.Trial)
        public void holdOne() {
            lease = locks.tryAcquire(NAME, LEASE).orElseThrow();
            try {
                keeper = KEEPER.invoke(lease);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        /**
         * The keeper's renewal step ({@code LeaseKeeper.renew(lease, due)}, which a worker runs when the timer wakes),
         * due now: a new record version, the conditional UpdateItem, the lease's new end and next wake.
         */
        void renew() {
            try {
                RENEW.invoke(keeper, lease, System.nanoTime());
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * The Lock Client holding one lock, its heartbeat sent on the caller's thread: its background heartbeat thread is
     * off, so that only the benchmark's heartbeats are sent.
     */
    @State(Scope.Benchmark)
    public static class PeerHolding extends Peer {
        LockItem item;

        @Override
        AmazonDynamoDBLockClientOptions.AmazonDynamoDBLockClientOptionsBuilder options(
                AmazonDynamoDBLockClientOptions.AmazonDynamoDBLockClientOptionsBuilder defaults) {
            return defaults.withCreateHeartbeatBackgroundThread(false);
        }

        @Setup(Level.Trial)
        public void holdOne() {
            try {
                item = locks.tryAcquireLock(AcquireLockOptions.builder(NAME).build())
                        .orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** LockTable against a lock that another table holds and renews. */
    @State(Scope.Benchmark)
    public static class OursWaiting extends Ours {
        public OursWaiting() {
            super(CannedHttpClient.heldForLockTable());
        }

        Optional<Lease> poll() {
            Optional<Lease> lease = locks.tryAcquire(NAME, LEASE);
            if (lease.isPresent()) {
                throw new IllegalStateException("a held lock was granted");
            }
            return lease;
        }
    }

    /** The Lock Client against a lock that another client holds and heartbeats. */
    @State(Scope.Benchmark)
    public static class PeerWaiting extends Peer {
        public PeerWaiting() {
            super(CannedHttpClient.heldForPeer());
        }

        Object poll() throws InterruptedException {
            try {
                return locks.tryAcquireLock(AcquireLockOptions.builder(NAME)
                        .withShouldSkipBlockingWait(true)
                        .build());
            } catch (LockCurrentlyUnavailableException busy) {
                return busy;
            }
        }
    }

    /**
     * The requests of each library's cycle, renewal and poll, built once by hand as the library builds them (LockTable's
     * with the {@code apiCallTimeout} it sets on every request, or without, by {@link #timeout}), sent through the same
     * client.
     */
    @State(Scope.Benchmark)
    public static class SdkLockTable {
        /** Whether LockTable's requests carry their per-request {@code apiCallTimeout}, as LockTable sends them. */
        @Param({"true", "false"})
        public boolean timeout;

        final CannedHttpClient http = CannedHttpClient.free();
        final DynamoDbClient client = client(http);
        final DynamoDbClient heldClient = client(CannedHttpClient.heldForLockTable());
        UpdateItemRequest oursAcquire;
        UpdateItemRequest oursRelease;
        UpdateItemRequest oursRenew;
        GetItemRequest oursRead;

        @Setup(Level.Trial)
        public void setUp() {
            Duration apiCallTimeout = Duration.ofSeconds(20);
            Map<String, AttributeValue> oursKey = Map.of(Rig.OURS_KEY, AttributeValue.fromS("LOCK#" + NAME));
            oursAcquire = UpdateItemRequest.builder()
                    .tableName(OURS_TABLE)
                    .key(oursKey)
                    .updateExpression("SET #owner = :owner, #rvn = :rvn, #leaseMs = :leaseMs, #type = :lockType,"
                            + " #fence = if_not_exists(#fence, :fenceFloor) + :one REMOVE #holder")
                    .conditionExpression(
                            "attribute_not_exists(#owner) AND (attribute_not_exists(#pk) OR #type = :lockType)"
                                    + " AND (attribute_not_exists(#fence) OR attribute_type(#fence, :numberType))")
                    .expressionAttributeNames(Map.of(
                            "#owner",
                            "owner",
                            "#rvn",
                            "rvn",
                            "#leaseMs",
                            "leaseMs",
                            "#type",
                            "_type",
                            "#fence",
                            "fence",
                            "#holder",
                            "holder",
                            "#pk",
                            Rig.OURS_KEY))
                    .expressionAttributeValues(Map.of(
                            ":owner", AttributeValue.fromS("0b5e3f2c-5b8e-4a39-9f55-8a1f3c2d7e10.1"),
                            ":rvn", AttributeValue.fromS("6f1d2a7e-0c4b-4f0e-8a3e-2b9c5d7e1f20"),
                            ":leaseMs", AttributeValue.fromN("20000"),
                            ":one", AttributeValue.fromN("1"),
                            ":fenceFloor", AttributeValue.fromN("0"),
                            ":lockType", AttributeValue.fromS("LOCK"),
                            ":numberType", AttributeValue.fromS("N")))
                    .returnValues(ReturnValue.ALL_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .overrideConfiguration(o -> timeout(o, apiCallTimeout))
                    .build();
            oursRelease = UpdateItemRequest.builder()
                    .tableName(OURS_TABLE)
                    .key(oursKey)
                    .updateExpression("REMOVE #owner, #holder")
                    .conditionExpression("#owner = :owner AND #fence = :fence")
                    .expressionAttributeNames(Map.of("#owner", "owner", "#holder", "holder", "#fence", "fence"))
                    .expressionAttributeValues(Map.of(
                            ":owner", AttributeValue.fromS("0b5e3f2c-5b8e-4a39-9f55-8a1f3c2d7e10.1"),
                            ":fence", AttributeValue.fromN("101")))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .overrideConfiguration(o -> timeout(o, apiCallTimeout))
                    .build();
            oursRenew = UpdateItemRequest.builder()
                    .tableName(OURS_TABLE)
                    .key(oursKey)
                    .updateExpression("SET #rvn = :newRvn, #leaseMs = :leaseMs")
                    .conditionExpression("#owner = :owner AND #fence = :fence AND #rvn IN (:c0)")
                    .expressionAttributeNames(
                            Map.of("#owner", "owner", "#rvn", "rvn", "#fence", "fence", "#leaseMs", "leaseMs"))
                    .expressionAttributeValues(Map.of(
                            ":owner", AttributeValue.fromS("0b5e3f2c-5b8e-4a39-9f55-8a1f3c2d7e10.1"),
                            ":fence", AttributeValue.fromN("101"),
                            ":newRvn", AttributeValue.fromS("7a2e3b8f-1d5c-4a1f-9b4f-3c0d6e8f2a31"),
                            ":leaseMs", AttributeValue.fromN("20000"),
                            ":c0", AttributeValue.fromS("6f1d2a7e-0c4b-4f0e-8a3e-2b9c5d7e1f20")))
                    .overrideConfiguration(o -> timeout(o, apiCallTimeout))
                    .build();
            oursRead = GetItemRequest.builder()
                    .tableName(OURS_TABLE)
                    .key(oursKey)
                    .consistentRead(true)
                    .overrideConfiguration(o -> timeout(o, apiCallTimeout))
                    .build();
        }

        private void timeout(AwsRequestOverrideConfiguration.Builder o, Duration apiCallTimeout) {
            if (timeout) {
                o.apiCallTimeout(apiCallTimeout);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            client.close();
            heldClient.close();
        }
    }

    /** The Lock Client's requests, built once by hand as it builds them (no per-request configuration). */
    @State(Scope.Benchmark)
    public static class SdkLockClient {
        final DynamoDbClient client = client(CannedHttpClient.free());
        final DynamoDbClient heldClient = client(CannedHttpClient.heldForPeer());
        GetItemRequest peerRead;
        PutItemRequest peerPut;
        DeleteItemRequest peerDelete;
        UpdateItemRequest peerHeartbeat;

        @Setup(Level.Trial)
        public void setUp() {
            Map<String, AttributeValue> peerKey = Map.of(Rig.PEER_KEY, AttributeValue.fromS(NAME));
            peerRead = GetItemRequest.builder()
                    .tableName(PEER_TABLE)
                    .key(peerKey)
                    .consistentRead(true)
                    .build();
            peerPut = PutItemRequest.builder()
                    .tableName(PEER_TABLE)
                    .item(Map.of(
                            Rig.PEER_KEY,
                            AttributeValue.fromS(NAME),
                            "ownerName",
                            AttributeValue.fromS("host-1c9f2e7a-3b4d-4e5f-8a6b-7c8d9e0f1a2b"),
                            "leaseDuration",
                            AttributeValue.fromS("20000"),
                            "recordVersionNumber",
                            AttributeValue.fromS("6f1d2a7e-0c4b-4f0e-8a3e-2b9c5d7e1f20")))
                    .conditionExpression("attribute_not_exists(#pk)")
                    .expressionAttributeNames(Map.of("#pk", Rig.PEER_KEY))
                    .build();
            peerDelete = DeleteItemRequest.builder()
                    .tableName(PEER_TABLE)
                    .key(peerKey)
                    .conditionExpression("attribute_exists(#pk) AND #rvn = :rvn AND #on = :on")
                    .expressionAttributeNames(
                            Map.of("#pk", Rig.PEER_KEY, "#rvn", "recordVersionNumber", "#on", "ownerName"))
                    .expressionAttributeValues(Map.of(
                            ":rvn", AttributeValue.fromS("6f1d2a7e-0c4b-4f0e-8a3e-2b9c5d7e1f20"),
                            ":on", AttributeValue.fromS("host-1c9f2e7a-3b4d-4e5f-8a6b-7c8d9e0f1a2b")))
                    .build();
            peerHeartbeat = UpdateItemRequest.builder()
                    .tableName(PEER_TABLE)
                    .key(peerKey)
                    .updateExpression("SET #ld = :ld, #rvn = :newRvn")
                    .conditionExpression("attribute_exists(#pk) AND #rvn = :rvn AND #on = :on")
                    .expressionAttributeNames(Map.of(
                            "#pk",
                            Rig.PEER_KEY,
                            "#ld",
                            "leaseDuration",
                            "#rvn",
                            "recordVersionNumber",
                            "#on",
                            "ownerName"))
                    .expressionAttributeValues(Map.of(
                            ":rvn", AttributeValue.fromS("6f1d2a7e-0c4b-4f0e-8a3e-2b9c5d7e1f20"),
                            ":on", AttributeValue.fromS("host-1c9f2e7a-3b4d-4e5f-8a6b-7c8d9e0f1a2b"),
                            ":newRvn", AttributeValue.fromS("7a2e3b8f-1d5c-4a1f-9b4f-3c0d6e8f2a31"),
                            ":ld", AttributeValue.fromS("20000")))
                    .build();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            client.close();
            heldClient.close();
        }
    }

    // ---- acquire + release of a free lock

    @Benchmark
    public Object cycleLockTable(Ours s) {
        return s.cycle();
    }

    @Benchmark
    public Object cycleLockClient(Peer s) throws InterruptedException {
        return s.cycle();
    }

    @Benchmark
    public Object sdkCycleLockTable(SdkLockTable s) {
        s.client.updateItem(s.oursAcquire);
        return s.client.updateItem(s.oursRelease);
    }

    @Benchmark
    public Object sdkCycleLockClient(SdkLockClient s) {
        s.client.getItem(s.peerRead);
        s.client.putItem(s.peerPut);
        return s.client.deleteItem(s.peerDelete);
    }

    // ---- one renewal of a held lease

    @Benchmark
    public Object renewalLockTable(OursHolding s) {
        s.renew();
        return s.lease;
    }

    @Benchmark
    public Object renewalLockClient(PeerHolding s) {
        s.locks.sendHeartbeat(s.item);
        return s.item;
    }

    @Benchmark
    public Object sdkRenewalLockTable(SdkLockTable s) {
        return s.client.updateItem(s.oursRenew);
    }

    @Benchmark
    public Object sdkRenewalLockClient(SdkLockClient s) {
        return s.client.updateItem(s.peerHeartbeat);
    }

    // ---- one attempt on a lock another process holds

    @Benchmark
    public Object pollLockTable(OursWaiting s) {
        return s.poll();
    }

    @Benchmark
    public Object pollLockClient(PeerWaiting s) throws InterruptedException {
        return s.poll();
    }

    @Benchmark
    public Object sdkPollLockTable(SdkLockTable s) {
        return s.heldClient.getItem(s.oursRead);
    }

    @Benchmark
    public Object sdkPollLockClient(SdkLockClient s) {
        return s.heldClient.getItem(s.peerRead);
    }

    /** A refused write, for scale: what a ConditionalCheckFailedException with its item costs in the SDK. */
    @Benchmark
    public Object sdkRefusedWrite(SdkLockTable s) {
        try {
            return s.heldClient.updateItem(s.oursRelease);
        } catch (ConditionalCheckFailedException e) {
            return e;
        }
    }
}
