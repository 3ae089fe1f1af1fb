package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.LockItem;
import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * A diagnostic for scenario 1: what each request of a cycle costs on dynalite. It captures the requests both
 * libraries really send for one acquire + release and replays them on new keys, timing each, next to whole cycles of
 * each library with and without a delay added before every request (a stand-in for the network round trip to
 * DynamoDB). It also times LockTable's acquire with the three-level condition it sent before commit f95ad3d, to show
 * what the nesting cost dynalite. All kinds alternate in rounds on one thread.
 */
public final class RequestCosts {

    /** The round trip added to every request of the delayed cycles. */
    static final Duration ROUND_TRIP = Duration.ofMillis(5);

    /** LockTable's acquire condition before commit f95ad3d: the same meaning, nested three levels deep. */
    static final String NESTED_CONDITION = "attribute_not_exists(#owner) AND (attribute_not_exists(#pk) OR (#type ="
            + " :lockType AND (attribute_not_exists(#fence) OR attribute_type(#fence, :numberType))))";

    private final DynamoDbEngine engine;
    private final String oursTable;
    private final String peerTable;
    private final int rounds;
    private final int perRound;

    /**
     * Sets the diagnostic up.
     *
     * @param engine the engine
     * @param oursTable LockTable's table
     * @param peerTable the peer's table
     * @param rounds alternating rounds
     * @param perRound requests (or cycles) of each kind per round
     */
    public RequestCosts(DynamoDbEngine engine, String oursTable, String peerTable, int rounds, int perRound) {
        this.engine = engine;
        this.oursTable = oursTable;
        this.peerTable = peerTable;
        this.rounds = rounds;
        this.perRound = perRound;
    }

    /**
     * The mean time of one request or cycle of a kind in each round.
     *
     * @param kind what was sent
     * @param detail the condition expression, or empty
     * @param perRoundNanos the mean time in each round
     */
    record Cost(String kind, String detail, List<Double> perRoundNanos) {
        double median() {
            return Summary.of(perRoundNanos).median();
        }
    }

    /** The requests of one cycle of each library, as the libraries sent them. */
    private static final class Captured implements ExecutionInterceptor {
        final AtomicReference<UpdateItemRequest> acquire = new AtomicReference<>();
        final AtomicReference<UpdateItemRequest> release = new AtomicReference<>();
        final AtomicReference<GetItemRequest> peerGet = new AtomicReference<>();
        final AtomicReference<PutItemRequest> peerPut = new AtomicReference<>();
        final AtomicReference<DeleteItemRequest> peerDelete = new AtomicReference<>();

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            SdkRequest request = context.request();
            if (request instanceof UpdateItemRequest update && update.conditionExpression() != null) {
                if (update.updateExpression().startsWith("REMOVE")) {
                    release.compareAndSet(null, update);
                } else if (update.conditionExpression().startsWith("attribute_not_exists(")) {
                    acquire.compareAndSet(null, update);
                }
            } else if (request instanceof GetItemRequest get) {
                peerGet.compareAndSet(null, get);
            } else if (request instanceof PutItemRequest put) {
                peerPut.compareAndSet(null, put);
            } else if (request instanceof DeleteItemRequest delete) {
                peerDelete.compareAndSet(null, delete);
            }
        }
    }

    /** Times of one round, by kind. */
    private static final class Round {
        final double[] sums = new double[KINDS];

        void add(int kind, long startNanos) {
            sums[kind] += System.nanoTime() - startNanos;
        }
    }

    private static final int ACQUIRE = 0;
    private static final int NESTED = 1;
    private static final int RELEASE = 2;
    private static final int GET = 3;
    private static final int PUT = 4;
    private static final int DELETE = 5;
    private static final int OURS_CYCLE = 6;
    private static final int PEER_CYCLE = 7;
    private static final int OURS_SLOW = 8;
    private static final int PEER_SLOW = 9;
    private static final int KINDS = 10;

    /**
     * Runs the replays.
     *
     * @return the costs, in this order: LockTable's acquire, the nested acquire, LockTable's release, the peer's
     *     GetItem, PutItem and DeleteItem; cycles of LockTable and of the peer; the same with the round trip added
     */
    public List<Cost> run() {
        Captured captured = new Captured();
        Duration lease = AcquireReleaseBenchmark.LEASE;
        String oursName = "costs-" + UUID.randomUUID();
        String peerName = "costs-" + UUID.randomUUID();
        try (DynamoDbClient client = Engine.client(engine, captured);
                DynamoDbClient slow = Engine.client(engine, new DelayInterceptor(ROUND_TRIP));
                LockTable locks =
                        LockTable.builder(client, oursTable, Tables.OURS_KEY).build();
                PeerDriver peer = PeerDriver.defaults(client, peerTable);
                LockTable slowLocks =
                        LockTable.builder(slow, oursTable, Tables.OURS_KEY).build();
                PeerDriver slowPeer = PeerDriver.defaults(slow, peerTable)) {
            locks.tryAcquire(oursName, lease).orElseThrow().release();
            peer.release(peer.tryAcquire(peerName));
            List<List<Double>> times = new ArrayList<>();
            for (int k = 0; k < KINDS; k++) {
                times.add(new ArrayList<>());
            }
            for (int round = 0; round <= rounds; round++) {
                Round r = new Round();
                for (int i = 0; i < perRound; i++) {
                    replayOurs(client, captured, r);
                    replayPeer(client, captured, r);
                    long start = System.nanoTime();
                    client.updateItem(onNewKey(captured.acquire.get().toBuilder()
                            .conditionExpression(NESTED_CONDITION)
                            .build()));
                    r.add(NESTED, start);
                    start = System.nanoTime();
                    locks.tryAcquire(oursName, lease).orElseThrow().release();
                    r.add(OURS_CYCLE, start);
                    start = System.nanoTime();
                    LockItem item = peer.tryAcquire(peerName);
                    peer.release(item);
                    r.add(PEER_CYCLE, start);
                    start = System.nanoTime();
                    slowLocks.tryAcquire(oursName, lease).orElseThrow().release();
                    r.add(OURS_SLOW, start);
                    start = System.nanoTime();
                    LockItem slowItem = slowPeer.tryAcquire(peerName);
                    slowPeer.release(slowItem);
                    r.add(PEER_SLOW, start);
                }
                if (round > 0) { // round 0 warms up
                    for (int k = 0; k < KINDS; k++) {
                        times.get(k).add(r.sums[k] / perRound);
                    }
                }
            }
            String added = ", " + Format.duration(ROUND_TRIP) + " added before every request";
            UpdateItemRequest acquire = captured.acquire.get();
            return List.of(
                    new Cost("LockTable: acquire `UpdateItem`", acquire.conditionExpression(), times.get(ACQUIRE)),
                    new Cost(
                            "LockTable: acquire `UpdateItem` with the condition it sent before f95ad3d",
                            NESTED_CONDITION,
                            times.get(NESTED)),
                    new Cost(
                            "LockTable: release `UpdateItem`",
                            captured.release.get().conditionExpression(),
                            times.get(RELEASE)),
                    new Cost("Lock Client: `GetItem` (consistent)", "", times.get(GET)),
                    new Cost("Lock Client: `PutItem`", captured.peerPut.get().conditionExpression(), times.get(PUT)),
                    new Cost(
                            "Lock Client: `DeleteItem`",
                            captured.peerDelete.get().conditionExpression(),
                            times.get(DELETE)),
                    new Cost("LockTable: whole cycle (the library)", "", times.get(OURS_CYCLE)),
                    new Cost("Lock Client: whole cycle (the library)", "", times.get(PEER_CYCLE)),
                    new Cost("LockTable: whole cycle" + added, "", times.get(OURS_SLOW)),
                    new Cost("Lock Client: whole cycle" + added, "", times.get(PEER_SLOW)));
        }
    }

    /** LockTable's acquire and release on a new key, the release carrying the fence the acquire got. */
    private static void replayOurs(DynamoDbClient client, Captured captured, Round round) {
        UpdateItemRequest acquire = onNewKey(captured.acquire.get());
        long start = System.nanoTime();
        UpdateItemResponse acquired = client.updateItem(acquire);
        round.add(ACQUIRE, start);
        UpdateItemRequest template = captured.release.get();
        Map<String, AttributeValue> values = new HashMap<>(template.expressionAttributeValues());
        values.put(":fence", acquired.attributes().get("fence"));
        UpdateItemRequest release = template.toBuilder()
                .key(acquire.key())
                .expressionAttributeValues(values)
                .build();
        start = System.nanoTime();
        client.updateItem(release);
        round.add(RELEASE, start);
    }

    /** The peer's read, put and delete on a new key, the put and delete as the peer built them. */
    private static void replayPeer(DynamoDbClient client, Captured captured, Round round) {
        Map<String, AttributeValue> key = Map.of(Tables.PEER_KEY, AttributeValue.fromS("costs-" + UUID.randomUUID()));
        GetItemRequest get = captured.peerGet.get().toBuilder().key(key).build();
        long start = System.nanoTime();
        client.getItem(get);
        round.add(GET, start);
        Map<String, AttributeValue> item = new HashMap<>(captured.peerPut.get().item());
        item.putAll(key);
        PutItemRequest put = captured.peerPut.get().toBuilder().item(item).build();
        start = System.nanoTime();
        client.putItem(put);
        round.add(PUT, start);
        DeleteItemRequest delete =
                captured.peerDelete.get().toBuilder().key(key).build();
        start = System.nanoTime();
        client.deleteItem(delete);
        round.add(DELETE, start);
    }

    private static UpdateItemRequest onNewKey(UpdateItemRequest template) {
        return template.toBuilder()
                .key(Map.of(Tables.OURS_KEY, AttributeValue.fromS("LOCK#costs-" + UUID.randomUUID())))
                .build();
    }
}
