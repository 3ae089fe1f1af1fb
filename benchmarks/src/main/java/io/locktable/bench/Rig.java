package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.CreateDynamoDBTableOptions;
import io.locktable.test.DynaliteServer;
import io.locktable.test.MotoServer;
import io.locktable.test.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * One local engine (dynalite or moto, started by lock-test) with a {@link TcpProxy} in front of it per round trip:
 * both libraries reach the engine through the same proxy, whose delay (half each way) stands for the network. Every
 * client is built the same way: the SDK's default synchronous HTTP client (Apache 5), room for every thread.
 */
final class Rig implements AutoCloseable {

    static final String OURS_KEY = "pk";
    static final String PEER_KEY = "key";

    final String engine;
    final URI endpoint;
    final String oursTable;
    final String peerTable;
    private final Map<Integer, TcpProxy> proxies = new TreeMap<>();
    private final List<TcpProxy> others = new ArrayList<>();
    private final DynamoDbClient admin;

    private Rig(String engine, URI endpoint, List<Integer> roundTrips) {
        this.engine = engine;
        this.endpoint = endpoint;
        for (int rtt : roundTrips) {
            Duration half = Duration.ofNanos(rtt * 500_000L);
            proxies.put(rtt, proxy(half, half));
        }
        this.admin = client(endpoint);
        this.oursTable = newOursTable("bench-ours");
        this.peerTable = newPeerTable("bench-peer");
    }

    /** Starts (or joins) this JVM's server of an engine, {@code dynalite} or {@code moto}, with its proxies. */
    static Rig start(String engine, List<Integer> roundTrips) {
        URI endpoint = switch (engine) {
            case "dynalite" -> DynaliteServer.shared().endpoint();
            case "moto" -> MotoServer.shared().endpoint();
            default -> throw new IllegalArgumentException("unknown engine " + engine);
        };
        return new Rig(engine, endpoint, roundTrips);
    }

    /** The proxy with this round trip (milliseconds), as clients reach it. */
    URI at(int roundTripMillis) {
        TcpProxy proxy = proxies.get(roundTripMillis);
        if (proxy == null) {
            throw new IllegalArgumentException("no proxy at " + roundTripMillis + " ms on " + engine);
        }
        return proxy.endpoint();
    }

    /** A proxy of its own with a delay each way, closed with the rig. */
    TcpProxy proxy(Duration requests, Duration replies) {
        TcpProxy proxy = TcpProxy.start(endpoint);
        proxy.delay(requests, replies);
        others.add(proxy);
        return proxy;
    }

    static DynamoDbClient client(URI endpoint, ExecutionInterceptor... interceptors) {
        return client(endpoint, null, interceptors);
    }

    /**
     * A client as above; with {@code apiCallTimeout}, one that bounds every call itself, as production clients are
     * often built (the SDK then runs its timeout threads for every call, whether LockTable sets a timeout or not).
     */
    static DynamoDbClient client(URI endpoint, Duration apiCallTimeout, ExecutionInterceptor... interceptors) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .httpClientBuilder(
                        Apache5HttpClient.builder().maxConnections(160).connectionTimeout(Duration.ofSeconds(2)))
                .overrideConfiguration(o -> {
                    if (apiCallTimeout != null) {
                        o.apiCallTimeout(apiCallTimeout);
                    }
                    for (ExecutionInterceptor interceptor : interceptors) {
                        o.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }

    /**
     * An asynchronous client, with the SDK's default asynchronous HTTP client (Netty's, from the runtime class path)
     * at its defaults: for LockTable's {@code acquireAsync} without a worker thread per request in flight.
     */
    static DynamoDbAsyncClient asyncClient(URI endpoint, ExecutionInterceptor... interceptors) {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .overrideConfiguration(o -> {
                    for (ExecutionInterceptor interceptor : interceptors) {
                        o.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }

    /** A table for LockTable: string partition key {@value #OURS_KEY}, no sort key, billed per request. */
    String newOursTable(String prefix) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        admin.createTable(r -> r.tableName(name)
                .keySchema(k -> k.attributeName(OURS_KEY).keyType(KeyType.HASH))
                .attributeDefinitions(a -> a.attributeName(OURS_KEY).attributeType(ScalarAttributeType.S))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        admin.waiter().waitUntilTableExists(r -> r.tableName(name));
        return name;
    }

    /** A table for the peer, made by its own {@code createLockTableInDynamoDB}; local engines do not throttle. */
    String newPeerTable(String prefix) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        ProvisionedThroughput throughput = ProvisionedThroughput.builder()
                .readCapacityUnits(10_000L)
                .writeCapacityUnits(10_000L)
                .build();
        AmazonDynamoDBLockClient.createLockTableInDynamoDB(
                CreateDynamoDBTableOptions.builder(admin, throughput, name).build());
        admin.waiter().waitUntilTableExists(r -> r.tableName(name));
        return name;
    }

    void deleteTable(String name) {
        admin.deleteTable(r -> r.tableName(name));
    }

    @Override
    public void close() {
        proxies.values().forEach(TcpProxy::close);
        others.forEach(TcpProxy::close);
        admin.close();
    }
}
