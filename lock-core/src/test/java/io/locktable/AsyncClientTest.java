package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineAssumptions;
import io.locktable.test.EngineCapability;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbAsyncTable;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedAsyncClient;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * A lock table over the asynchronous client ({@link LockTable#builder(DynamoDbAsyncClient, String, String)}) beside
 * one over the synchronous client, on one lock: they interoperate, since the item and the protocol are the same. And
 * what waiting on the asynchronous client's future must keep of the synchronous client: an interrupt cancels the
 * request in flight (a write that may have applied is given back), a release is sent and answered even on an
 * interrupted thread, the SDK's exceptions come unwrapped. The contract suite runs over it in {@link
 * AsyncClientContractTest}.
 */
@DynamoDbEngineTest
class AsyncClientTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final Contenders contenders;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final String name = Contenders.lockName();

    AsyncClientTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    @AfterEach
    void close() throws Exception {
        threads.shutdownNow();
        contenders.close();
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close(); // the tables before the clients they use
        }
    }

    /** A lock table over an asynchronous client of its own, which carries {@code faults}. */
    private LockTable asyncTable(FaultInjector faults, Consumer<LockTable.Builder> customizer) {
        DynamoDbAsyncClient client = engine.newAsyncClient(o -> o.addExecutionInterceptor(faults));
        opened.add(client);
        return asyncTable(client, customizer);
    }

    private LockTable asyncTable(DynamoDbAsyncClient client, Consumer<LockTable.Builder> customizer) {
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        customizer.accept(builder);
        LockTable locks = builder.build();
        opened.add(locks);
        return locks;
    }

    private LockTable asyncTable() {
        return asyncTable(new FaultInjector(), b -> {});
    }

    /** A process that acquires and then never renews: its clock never moves. */
    private LockTable frozenAsyncTable() {
        return asyncTable(new FaultInjector(), b -> b.clock(new ManualLockClock(0)));
    }

    @Test
    void aLockHeldThroughOneClientIsRefusedThroughTheOtherAndItsReleaseLetsTheOtherIn() throws Exception {
        LockTable sync = contenders.add().locks();
        LockTable async = asyncTable();

        Lease first = sync.tryAcquire(name, LEASE).orElseThrow();
        assertThat(async.tryAcquire(name, LEASE)).isEmpty();
        Future<Lease> waiting = threads.submit(() -> async.acquire(name, LEASE, LEASE.multipliedBy(3)));
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        first.release();

        Lease second = waiting.get(LEASE.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
        assertThat(sync.tryAcquire(name, LEASE)).isEmpty();
        assertThat(sync.read(name).orElseThrow().owner()).contains(second.owner());

        second.release();
        Lease third = sync.tryAcquire(name, LEASE).orElseThrow();
        assertThat(third.fencingToken()).isEqualTo(second.fencingToken() + 1);
    }

    @Test
    void aHolderThroughTheAsynchronousClientThatStoppedRenewingIsTakenOverThroughTheSynchronousOne() throws Exception {
        Lease frozen = frozenAsyncTable().tryAcquire(name, LEASE).orElseThrow();

        Lease taken = contenders.add().locks().acquire(name, LEASE, LEASE.multipliedBy(4));

        assertThat(taken.tookOver()).isTrue();
        assertThat(taken.fencingToken()).isEqualTo(frozen.fencingToken() + 1);
        frozen.release(); // sent, and changes nothing
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(taken.owner());
    }

    @Test
    void aHolderThroughTheSynchronousClientThatStoppedRenewingIsTakenOverThroughTheAsynchronousOne() throws Exception {
        Lease frozen = contenders
                .add(b -> b.clock(new ManualLockClock(0)))
                .locks()
                .tryAcquire(name, LEASE)
                .orElseThrow();

        Lease taken = asyncTable().acquire(name, LEASE, LEASE.multipliedBy(4));

        assertThat(taken.tookOver()).isTrue();
        assertThat(taken.fencingToken()).isEqualTo(frozen.fencingToken() + 1);
        assertThat(taken.isHeld()).isTrue();
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(taken.owner());
    }

    @Test
    void anAcquireInterruptedDuringItsWriteCancelsTheRequestAndGivesBackWhatItTook() throws Exception {
        CountDownLatch applied = new CountDownLatch(1);
        FaultInjector faults = new FaultInjector();
        // the engine applies the write (its answer has come back to the client), and the answer is held five seconds:
        // the interrupt comes while it is held, so the write was surely applied (an interrupt while the request is
        // still on its way may let the give-back overtake it, and find nothing to give back)
        ExecutionInterceptor answered = new ExecutionInterceptor() {
            @Override
            public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
                applied.countDown();
            }
        };
        DynamoDbAsyncClient client =
                // the SDK runs the hooks after transmission in the reverse order of the interceptors: this one first
                engine.newAsyncClient(o -> o.addExecutionInterceptor(faults).addExecutionInterceptor(answered));
        opened.add(client);
        LockTable async = asyncTable(client, b -> {});
        faults.delayReply("UpdateItem", Duration.ofSeconds(5), 1);
        AtomicReference<Thread> caller = new AtomicReference<>();
        Future<Lease> acquiring = threads.submit(() -> {
            caller.set(Thread.currentThread());
            return async.acquire(name, Duration.ofSeconds(30), Duration.ofSeconds(20));
        });
        assertThat(applied.await(5, TimeUnit.SECONDS)).isTrue();

        long interrupted = System.nanoTime();
        caller.get().interrupt();

        assertThatThrownBy(() -> acquiring.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(InterruptedException.class)
                .hasMessageContaining("interrupted during a request")
                .hasCauseInstanceOf(AbortedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - interrupted))
                .as("the caller did not wait for the answer")
                .isLessThan(Duration.ofSeconds(3));
        // the write was applied: it is given back, not left held by nobody for 30 s
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !contenders.item(name).containsKey("owner"));
        assertThat(contenders.item(name).get("fence").n()).isEqualTo("1");
        assertThat(async.heldLeases()).isEmpty();
        assertThat(contenders.add().locks().tryAcquire(name, LEASE)).isPresent();
    }

    @Test
    void acquireWithAMaxWaitReturnsWithinItWhileARequestHangsAndGivesBackWhatTheRequestTook() {
        FaultInjector faults = new FaultInjector();
        LockTable async = asyncTable(faults, b -> {});
        // the engine applies the write, and its answer takes eight seconds: the request's apiCallTimeout ends it
        faults.delayReply("UpdateItem", Duration.ofSeconds(8), 1);

        long start = System.nanoTime();
        assertThatThrownBy(() -> async.acquire(name, Duration.ofSeconds(30), Duration.ofSeconds(1)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(name);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).as("bounded by maxWait, not by the request").isLessThan(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !contenders.item(name).containsKey("owner"));
        assertThat(async.heldLeases()).isEmpty();
    }

    @Test
    void aReleaseOnAnInterruptedThreadIsStillSentAndTheInterruptKept() {
        Lease lease = asyncTable().tryAcquire(name, LEASE).orElseThrow();

        Thread.currentThread().interrupt();
        lease.release();
        boolean stillInterrupted = Thread.interrupted();

        assertThat(stillInterrupted).isTrue();
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }

    @Test
    void aReleaseInterruptedWhileItWaitsForTheAnswerIsWaitedForAndTheInterruptKept() throws Exception {
        FaultInjector faults = new FaultInjector();
        LockTable async = asyncTable(faults, b -> {});
        Lease lease = async.tryAcquire(name, LEASE).orElseThrow();
        CountDownLatch sent = new CountDownLatch(1);
        faults.beforeSend("UpdateItem", sent::countDown, 1).delayReply("UpdateItem", Duration.ofMillis(800), 1);
        Thread releaser = Thread.currentThread();
        threads.submit(() -> {
            sent.await();
            releaser.interrupt();
            return null;
        });

        lease.release();
        boolean stillInterrupted = Thread.interrupted();

        assertThat(stillInterrupted).isTrue();
        assertThat(contenders.item(name)).doesNotContainKey("owner");
        assertThat(contenders.add().locks().tryAcquire(name, LEASE)).isPresent();
    }

    @Test
    void closingOnAnInterruptedThreadStillReleases() {
        LockTable async = asyncTable();
        async.tryAcquire(name, LEASE).orElseThrow();

        Thread.currentThread().interrupt();
        async.close();
        boolean stillInterrupted = Thread.interrupted();

        assertThat(stillInterrupted).isTrue();
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }

    @Test
    void theSdksExceptionComesUnwrappedFromTheFuture() {
        DynamoDbAsyncClient client = engine.asyncClient();
        try (LockTable missing = LockTable.builder(client, engine.uniqueTableName("missing"), "pk")
                .build()) {
            assertThatThrownBy(() -> missing.tryAcquire(name, LEASE))
                    .isInstanceOf(ResourceNotFoundException.class)
                    .satisfies(e -> assertThat(LockStore.mayHaveApplied(e)).isFalse())
                    .satisfies(e -> assertThat(LockStore.isTransient(e)).isFalse())
                    .satisfies(e -> assertThat(e.getSuppressed())
                            .as("where the caller waited")
                            .hasAtLeastOneElementOfType(DynamoDbLockStore.Requests.CallerStack.class));
            assertThatThrownBy(() -> missing.acquire(name, LEASE)).isInstanceOf(ResourceNotFoundException.class);
            assertThatThrownBy(missing::verify).isInstanceOf(ResourceNotFoundException.class);
        }
    }

    @Test
    void aFencedWriteAppliesWhileHeldAndIsRefusedAfterATakeover() throws Exception {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        FaultInjector faults = new FaultInjector();
        Lease lease = asyncTable(faults, b -> {}).tryAcquire(name, LEASE).orElseThrow();

        lease.transactWrite(putOrder("held"));
        assertThat(order("held")).isNotEmpty();

        faults.blackhole("UpdateItem"); // it stops renewing
        contenders.add().locks().acquire(name, LEASE, LEASE.multipliedBy(4));
        faults.clear();
        assertThatThrownBy(() -> lease.transactWrite(putOrder("stale"))).isInstanceOf(LeaseLostException.class);
        assertThat(order("stale")).isEmpty();
    }

    @Test
    void aMissingTableIsCreatedAndVerifiedThroughTheAsynchronousClient() {
        String created = engine.uniqueTableName("async-created");
        try (LockTable locks = LockTable.builder(engine.asyncClient(), created, "id")
                .sortKey("kind")
                .build()) {
            assertThat(locks.createTableIfMissing()).as("created").isTrue();
            assertThat(locks.createTableIfMissing()).as("it exists now").isFalse();
            locks.verify();
            assertThat(locks.tryAcquire(name, LEASE)).isPresent();
        } finally {
            engine.deleteTable(created);
        }
    }

    @Test
    void forTableTakesTheNameAndKeysOfAnEnhancedAsynchronousClientTable() {
        DynamoDbEnhancedAsyncClient enhanced = DynamoDbEnhancedAsyncClient.builder()
                .dynamoDbClient(engine.asyncClient())
                .build();
        DynamoDbAsyncTable<ValidationTest.Order> orders =
                enhanced.table(table.name(), TableSchema.fromBean(ValidationTest.Order.class));

        try (LockTable locks = LockTable.forTable(engine.asyncClient(), orders)) {
            assertThat(locks.tableName()).isEqualTo(table.name());
            assertThat(locks.partitionKey()).isEqualTo("pk");
            assertThat(locks.sortKey()).contains("sk");
            assertThat(locks.tryAcquire(name, LEASE)).isPresent();
            assertThat(contenders.item(name).get("sk").s()).isEqualTo("LOCK");
        }
        try (LockTable withOptions = LockTable.forTable(
                engine.asyncClient(),
                orders,
                LockTableOptions.builder().holder("h").build())) {
            assertThat(withOptions.options().holder()).contains("h");
        }
    }

    private TransactWriteItem putOrder(String id) {
        return TransactWriteItem.builder()
                .put(Put.builder().tableName(table.name()).item(orderKey(id)).build())
                .build();
    }

    private Map<String, AttributeValue> order(String id) {
        return engine.client()
                .getItem(r -> r.tableName(table.name()).consistentRead(true).key(orderKey(id)))
                .item();
    }

    private Map<String, AttributeValue> orderKey(String id) {
        return Map.of(
                table.partitionKey(), AttributeValue.fromS("ORDER#" + id),
                table.sortKey().orElseThrow(), AttributeValue.fromS("ORDER"));
    }
}
