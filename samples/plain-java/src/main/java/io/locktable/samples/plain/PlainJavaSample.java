package io.locktable.samples.plain;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableOptions;
import io.locktable.test.DynaliteServer;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * LockTable with lock-core alone: two "instances" (two {@link LockTable}s, as two processes would have) share one
 * table. It shows {@code tryAcquire}, {@code acquire} with a time limit, and {@code runAsLeader} with writes fenced by
 * the lease's token. Runs against the endpoint given as the first argument, or a local dynalite it starts.
 *
 * <pre>{@code
 * java -jar samples/plain-java/target/plain-java.jar [http://localhost:8000]
 * }</pre>
 */
public final class PlainJavaSample {

    private static final String TABLE = "PlainJavaSample";
    private static final Duration LEASE = Duration.ofSeconds(3);

    /**
     * Placeholder credentials for a local engine such as dynalite, which accepts any key. Against DynamoDB itself,
     * build the client with the SDK's default credentials chain instead.
     */
    private static final StaticCredentialsProvider LOCAL_ENGINE_CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));

    private final DynamoDbClient client;
    private final PrintStream out;

    PlainJavaSample(DynamoDbClient client, PrintStream out) {
        this.client = client;
        this.out = out;
    }

    /**
     * Runs the sample.
     *
     * @param args an endpoint URL, or nothing to start a local dynalite
     * @throws Exception if the sample fails
     */
    public static void main(String[] args) throws Exception {
        DynaliteServer dynalite = args.length == 0 ? DynaliteServer.start(0) : null;
        URI endpoint = dynalite != null ? dynalite.endpoint() : URI.create(args[0]);
        try (DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(LOCAL_ENGINE_CREDENTIALS)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build()) {
            new PlainJavaSample(client, System.out).run();
        } finally {
            if (dynalite != null) {
                dynalite.close();
            }
        }
    }

    /** Runs the three parts and checks what they show; throws if it did not happen. */
    void run() throws Exception {
        createTable();
        try (LockTable a = instance("instance-a");
                LockTable b = instance("instance-b")) {
            tryAcquire(a, b);
            acquireWithTimeout(a, b);
            lead(a, b);
        }
        say("done: every step showed what it should");
    }

    private LockTable instance(String holder) {
        return LockTable.builder(client, TABLE, "pk")
                .sortKey("sk")
                .options(LockTableOptions.builder().holder(holder).build())
                .build();
    }

    private void tryAcquire(LockTable a, LockTable b) {
        say("1. tryAcquire: one attempt, no wait");
        Lease lease = a.tryAcquire("report", LEASE).orElseThrow();
        say("   instance-a holds 'report' with fencing token " + lease.fencingToken());
        Optional<Lease> other = b.tryAcquire("report", LEASE);
        check(other.isEmpty(), "instance-b must not get a held lock");
        say("   instance-b tried too: empty, instance-a holds it");
        lease.release();
        say("   instance-a released it; the item keeps fence "
                + a.read("report").orElseThrow().fencingToken());
    }

    private void acquireWithTimeout(LockTable a, LockTable b) throws Exception {
        say("2. acquire with a time limit");
        Lease held = a.tryAcquire("nightly-export", LEASE).orElseThrow();
        try {
            b.acquire("nightly-export", LEASE, Duration.ofSeconds(1));
            check(false, "a live holder must not be taken over");
        } catch (TimeoutException e) {
            say("   instance-b waited 1 s for a live holder and gave up: " + e.getMessage());
        }
        long start = System.nanoTime();
        Thread releaser = new Thread(() -> sleepThen(500, held::release));
        releaser.start();
        Lease next = b.acquire("nightly-export", LEASE, LEASE.multipliedBy(2));
        releaser.join();
        say("   instance-a released after 0.5 s; instance-b got it "
                + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms after it started waiting, token "
                + next.fencingToken());
        check(next.fencingToken() > held.fencingToken(), "tokens must rise");
        next.release();
    }

    private void lead(LockTable a, LockTable b) throws Exception {
        say("3. runAsLeader: each leader writes 3 fenced records, then hands the lock on");
        List<String> written = new CopyOnWriteArrayList<>();
        List<Thread> leaders = List.of(
                new Thread(() -> leadOnce(a, "instance-a", written)),
                new Thread(() -> leadOnce(b, "instance-b", written)));
        leaders.forEach(Thread::start);
        for (Thread leader : leaders) {
            leader.join();
        }
        check(written.size() == 6, "both instances must have led once: " + written);
        say("   records in the order the resource applied them: " + written);
    }

    private void leadOnce(LockTable locks, String holder, List<String> written) {
        try {
            locks.runAsLeader("sweeper", LEASE, lease -> {
                say("   " + holder + " leads 'sweeper' with token " + lease.fencingToken());
                for (int i = 1; i <= 3; i++) {
                    check(writeFenced(lease.fencingToken(), holder + "#" + i), "a leader's write must apply");
                    written.add(holder + "#" + i + "@" + lease.fencingToken());
                    Thread.sleep(200);
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException(holder + " failed to lead", e);
        }
    }

    /** The system that checks tokens: refuses a write whose token is lower than the last one applied. */
    private boolean writeFenced(long fence, String record) {
        try {
            client.updateItem(r -> r.tableName(TABLE)
                    .key(Map.of("pk", AttributeValue.fromS("SWEEP"), "sk", AttributeValue.fromS("LAST")))
                    .updateExpression("SET lastFence = :fence, lastRecord = :record")
                    .conditionExpression("attribute_not_exists(lastFence) OR lastFence <= :fence")
                    .expressionAttributeValues(Map.of(
                            ":fence",
                            AttributeValue.fromN(Long.toString(fence)),
                            ":record",
                            AttributeValue.fromS(record))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private void createTable() {
        if (client.listTables().tableNames().contains(TABLE)) {
            return;
        }
        client.createTable(r -> r.tableName(TABLE)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(
                        KeySchemaElement.builder()
                                .attributeName("pk")
                                .keyType(KeyType.HASH)
                                .build(),
                        KeySchemaElement.builder()
                                .attributeName("sk")
                                .keyType(KeyType.RANGE)
                                .build())
                .attributeDefinitions(
                        AttributeDefinition.builder()
                                .attributeName("pk")
                                .attributeType(ScalarAttributeType.S)
                                .build(),
                        AttributeDefinition.builder()
                                .attributeName("sk")
                                .attributeType(ScalarAttributeType.S)
                                .build()));
        client.waiter().waitUntilTableExists(r -> r.tableName(TABLE));
    }

    private void say(String line) {
        out.println(LocalTime.now().truncatedTo(ChronoUnit.MILLIS) + " " + line);
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("sample check failed: " + what);
        }
    }

    private static void sleepThen(long millis, Runnable action) {
        try {
            Thread.sleep(millis);
            action.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
