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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/**
 * The fenced-write path. Tests that need transactions run on engines that have them and are skipped, with the
 * reason, elsewhere; the cancellation handling is also checked with the SDK's own model objects, answered by an
 * interceptor in place of the engine.
 */
@DynamoDbEngineTest
class TransactionPathTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    TransactionPathTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    private TransactWriteItem putOrder(String id) {
        return TransactWriteItem.builder()
                .put(Put.builder()
                        .tableName(table.name())
                        .item(Map.of(
                                table.partitionKey(), AttributeValue.fromS("ORDER#" + id),
                                table.sortKey().orElseThrow(), AttributeValue.fromS("ORDER")))
                        .build())
                .build();
    }

    private Map<String, AttributeValue> order(String id) {
        return engine.client()
                .getItem(r -> r.tableName(table.name())
                        .consistentRead(true)
                        .key(Map.of(
                                table.partitionKey(), AttributeValue.fromS("ORDER#" + id),
                                table.sortKey().orElseThrow(), AttributeValue.fromS("ORDER"))))
                .item();
    }

    /** Answers every TransactWriteItems in place of the engine with a cancellation of the given reasons. */
    private static ExecutionInterceptor cancelling(AtomicReference<List<String>> reasons) {
        return new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if ("TransactWriteItems".equals(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
                    throw FaultInjector.engineError(
                            TransactionCanceledException.builder()
                                    .cancellationReasons(reasons.get().stream()
                                            .map(code -> CancellationReason.builder()
                                                    .code(code)
                                                    .build())
                                            .toList()),
                            400,
                            "TransactionCanceledException",
                            "Transaction cancelled");
                }
            }
        };
    }

    @Test
    void aCancelledTransactionWhoseHeldCheckFailedIsALostLease() {
        AtomicReference<List<String>> reasons = new AtomicReference<>(List.of("ConditionalCheckFailed", "None"));
        Contenders.Contender a = contenders.add(b -> {}, o -> o.addExecutionInterceptor(cancelling(reasons)));
        Lease lease = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();

        assertThatThrownBy(() -> lease.transactWrite(putOrder("1")))
                .isInstanceOf(LeaseLostException.class)
                .hasCauseInstanceOf(TransactionCanceledException.class)
                .hasMessageContaining(lease.name());

        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.whenEnded()).isCompletedWithValue(LeaseEnd.LOST);
    }

    @Test
    void cancellationReasonsOfTheOtherItemsAreRethrownAsTheyAre() {
        for (List<String> codes : List.of(
                List.of("None", "ConditionalCheckFailed"),
                List.of("TransactionConflict", "None"),
                List.of("None", "ThrottlingError"),
                List.of("None", "ValidationError"),
                List.<String>of())) {
            AtomicReference<List<String>> reasons = new AtomicReference<>(codes);
            Contenders.Contender a = contenders.add(b -> {}, o -> o.addExecutionInterceptor(cancelling(reasons)));
            Lease lease = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();

            assertThatThrownBy(() -> lease.transactWrite(putOrder("1")))
                    .as("reasons %s", codes)
                    .isExactlyInstanceOf(TransactionCanceledException.class);
            assertThat(lease.isHeld()).as("reasons %s", codes).isTrue();
        }
    }

    @Test
    void aFencedWriteAppliesWhileHeld() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();

        lease.transactWrite(putOrder("held"));

        assertThat(order("held")).isNotEmpty();
    }

    @Test
    void aFencedWriteAfterATakeoverThrowsAndAppliesNothing() throws Exception {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Contenders.Contender stale = contenders.add();
        Contenders.Contender next = contenders.add();
        String name = Contenders.lockName();
        Lease old = stale.locks().tryAcquire(name, LEASE).orElseThrow();
        stale.faults().blackhole("UpdateItem");
        next.locks().acquire(name, LEASE);
        stale.faults().clear();

        // the stale holder ignores what it knows and writes through the engine: the check refuses it
        TransactWriteItem check = old.heldCheck();
        assertThatThrownBy(() -> engine.client().transactWriteItems(r -> r.transactItems(check, putOrder("stale"))))
                .isInstanceOf(TransactionCanceledException.class);
        assertThatThrownBy(() -> old.transactWrite(putOrder("stale"))).isInstanceOf(LeaseLostException.class);
        assertThat(order("stale")).isEmpty();
    }

    @Test
    void aRenewalThatMeetsTheHoldersOwnTransactionIsRetriedAndTheLeaseKept() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();

        // fenced writes back to back for one and a half leases, across at least two renewals: a renewal that
        // meets one of them is refused with TransactionConflictException and retried; a write that meets a
        // renewal is cancelled with a TransactionConflict reason, which is the caller's to retry, not a lost lease
        long end = System.nanoTime() + LEASE.toNanos() * 3 / 2;
        int written = 0;
        for (int i = 0; System.nanoTime() < end; i++) {
            try {
                lease.transactWrite(putOrder("busy-" + i));
                written++;
            } catch (TransactionCanceledException e) {
                assertThat(e.cancellationReasons().get(0).code()).isEqualTo("TransactionConflict");
            }
        }

        assertThat(written).isPositive();
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.renewedAt()).isAfter(lease.acquiredAt());
    }

    @Test
    void aRenewalAnsweredWithATransactionConflictIsRetriedAndTheLeaseKept() {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        a.faults()
                .failWith(
                        "UpdateItem",
                        () -> FaultInjector.engineError(
                                TransactionConflictException.builder(),
                                400,
                                "TransactionConflictException",
                                "Transaction is ongoing for the item"),
                        3);
        Instant before = lease.renewedAt();

        // three renewal attempts meet the "transaction", then one gets through, all within the lease
        await().atMost(LEASE.multipliedBy(3))
                .until(() -> a.faults().injected() == 3 && lease.renewedAt().isAfter(before));

        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.whenEnded()).isNotDone();
        assertThat(Long.parseLong(contenders.item(name).get("fence").n())).isEqualTo(lease.fencingToken());
    }

    @Test
    void aBusyLockCostsOneRequestWhereTheEngineReturnsTheItemOnAConditionFailure() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.RETURNS_ITEM_ON_CONDITION_FAILURE);
        Contenders.Contender a = contenders.add();
        Contenders.Contender b = contenders.add();
        String name = Contenders.lockName();
        a.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(b.locks().tryAcquire(name, LEASE)).isEmpty();

        assertThat(b.requests().operations()).containsExactly("UpdateItem");
    }

    @Test
    void aBusyLockIsReadWithOneGetItemWhereTheEngineReturnsNoItemOnAConditionFailure() {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                engine.supports(EngineCapability.RETURNS_ITEM_ON_CONDITION_FAILURE),
                "engine " + engine.name() + " returns the item: the GetItem fallback is not used");
        Contenders.Contender a = contenders.add();
        Contenders.Contender b = contenders.add();
        String name = Contenders.lockName();
        a.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(b.locks().tryAcquire(name, LEASE)).isEmpty();

        assertThat(b.requests().operations()).containsExactly("UpdateItem", "GetItem");
        assertThat(b.locks().tryAcquire(name, LEASE)).isEmpty();
        assertThat(b.requests().operations()).containsExactly("UpdateItem", "GetItem", "GetItem");
    }
}
