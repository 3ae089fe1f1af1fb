package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineAssumptions;
import io.locktable.test.EngineCapability;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * {@link Lease#commitAndRelease}: the user's writes and the release in one {@code TransactWriteItems}, two requests for
 * a protected cycle. On an engine with transactions (moto): they apply together or not at all, a lease that ended
 * writes nothing, a successor is never disturbed; on one without (dynalite), the request is refused and the lease kept.
 */
@DynamoDbEngineTest
class CommitAndReleaseTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    CommitAndReleaseTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void theWritesAndTheReleaseApplyInOneRequestAndTheNextHolderTakesTheNextToken() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Contenders.Contender holder = contenders.add();
        Lease lease = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        holder.requests().clear();

        lease.commitAndRelease(putOrder("committed", false));

        assertThat(holder.requests().operations()).containsExactly("TransactWriteItems");
        var sent = (TransactWriteItemsRequest) holder.requests().sent().get(0).request();
        assertThat(sent.transactItems().get(0).update().updateExpression()).startsWith("REMOVE");
        assertThat(order("committed")).isNotEmpty();
        assertThat(contenders.item(name)).doesNotContainKey("owner").containsKey("fence");
        assertThat(lease.end()).contains(LeaseEnd.RELEASED);
        Lease next = contenders.add().locks().tryAcquire(name, LEASE).orElseThrow();
        assertThat(next.fencingToken()).isEqualTo(lease.fencingToken() + 1);
        lease.close(); // after the commit: nothing is sent, the next holder is untouched
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(next.owner());
    }

    @Test
    void anItemWhoseConditionFailsAppliesNothingAndTheLeaseIsStillHeld() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Contenders.Contender holder = contenders.add();
        Lease lease = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        lease.transactWrite(putOrder("exists", false));

        assertThatThrownBy(() -> lease.commitAndRelease(putOrder("exists", true), putOrder("second", false)))
                .isExactlyInstanceOf(TransactionCanceledException.class);

        assertThat(order("second")).as("nothing of the transaction applied").isEmpty();
        assertThat(contenders.item(name).get("owner").s()).as("not released").isEqualTo(lease.owner());
        assertThat(lease.isHeld()).isTrue();
        lease.release();
    }

    @Test
    void aLeaseLostToAnotherHolderWritesNothingAndNeverDisturbsIt() throws Exception {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Contenders.Contender stale = contenders.add();
        Contenders.Contender next = contenders.add();
        Lease old = stale.locks().tryAcquire(name, LEASE).orElseThrow();
        stale.faults().blackhole("UpdateItem"); // its renewals never arrive: the other takes over after a lease
        Lease taken = next.locks().acquire(name, LEASE);
        stale.faults().clear();

        assertThatThrownBy(() -> old.commitAndRelease(putOrder("stale", false)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(name);

        assertThat(order("stale")).isEmpty();
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(taken.owner());
        assertThat(taken.isHeld()).isTrue();
    }

    @Test
    void aLeaseThatEndedSendsNothing() {
        Contenders.Contender holder = contenders.add();
        Lease lease = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        lease.release();
        holder.requests().clear();

        assertThatThrownBy(() -> lease.commitAndRelease(putOrder("late", false)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("RELEASED");
        assertThat(holder.requests().operations()).isEmpty();
    }

    @Test
    void anEngineWithoutTransactionsRefusesItAndTheLeaseIsKept() {
        assumeFalse(
                engine.supports(EngineCapability.TRANSACTIONS),
                "the engine has transactions: the refusal is dynalite's");
        Contenders.Contender holder = contenders.add();
        Lease lease = holder.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThatThrownBy(() -> lease.commitAndRelease(putOrder("refused", false)))
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("TransactWriteItems")
                .hasMessageContaining("no transactions")
                .hasMessageContaining(name);

        assertThat(lease.isHeld()).as("nothing was released").isTrue();
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(lease.owner());
        lease.release();
    }

    private TransactWriteItem putOrder(String id, boolean onlyIfAbsent) {
        Put.Builder put = Put.builder()
                .tableName(table.name())
                .item(Map.of(
                        table.partitionKey(), AttributeValue.fromS("ORDER#" + id),
                        table.sortKey().orElseThrow(), AttributeValue.fromS("ORDER")));
        if (onlyIfAbsent) {
            put.conditionExpression("attribute_not_exists(#pk)")
                    .expressionAttributeNames(Map.of("#pk", table.partitionKey()));
        }
        return TransactWriteItem.builder().put(put.build()).build();
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
}
