package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The held check over an engine: its condition expression, what it does on the item as the lock is renewed, released
 * or taken over, and the transaction {@link Lease#transactWrite} sends. The tokens a table hands out and the
 * regressions it reports are in {@link FencingTokenTest}, in memory.
 */
@DynamoDbEngineTest
class FencingTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    FencingTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    /**
     * Evaluates the condition of {@code heldCheck()} on the engine, as the condition of an update of the lock item
     * that changes nothing (the engine has no transactions).
     */
    private boolean heldCheckPasses(Lease lease) {
        ConditionCheck check = lease.heldCheck().conditionCheck();
        Map<String, String> names = new HashMap<>(check.expressionAttributeNames());
        names.put("#heldCheckFence", "fence");
        try {
            engine.client()
                    .updateItem(r -> r.tableName(check.tableName())
                            .key(check.key())
                            .conditionExpression(check.conditionExpression())
                            .updateExpression("SET #heldCheckFence = #heldCheckFence")
                            .expressionAttributeNames(names)
                            .expressionAttributeValues(check.expressionAttributeValues()));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    @Test
    void heldCheckIsAConditionCheckOnTheLockItemByOwnerAndFence() {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        ConditionCheck check = lease.heldCheck().conditionCheck();

        assertThat(check.tableName()).isEqualTo(table.name());
        assertThat(check.key()).isEqualTo(contenders.key(name));
        assertThat(check.conditionExpression()).isEqualTo("#owner = :owner AND #fence = :fence");
        assertThat(check.expressionAttributeNames()).isEqualTo(Map.of("#owner", "owner", "#fence", "fence"));
        assertThat(check.expressionAttributeValues())
                .isEqualTo(Map.of(":owner", AttributeValue.fromS(lease.owner()), ":fence", AttributeValue.fromN("1")));
    }

    @Test
    void heldCheckHoldsWhileHeldAndAcrossRenewalsAndFailsAfterRelease() throws Exception {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        assertThat(heldCheckPasses(lease)).isTrue();
        String rvn = contenders.item(name).get("rvn").s();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !contenders.item(name).get("rvn").s().equals(rvn));
        assertThat(heldCheckPasses(lease)).as("after a renewal").isTrue();

        lease.release();

        assertThat(heldCheckPasses(lease)).isFalse();
    }

    @Test
    void heldCheckFailsAfterATakeover() throws Exception {
        Contenders.Contender stale = contenders.add();
        Contenders.Contender next = contenders.add();
        String name = Contenders.lockName();
        Lease old = stale.locks().tryAcquire(name, LEASE).orElseThrow();
        stale.faults().blackhole("UpdateItem");

        Lease lease = next.locks().acquire(name, LEASE);

        assertThat(heldCheckPasses(old)).isFalse();
        assertThat(heldCheckPasses(lease)).isTrue();
        assertThat(old.isHeld()).isFalse();
    }

    @Test
    void releaseOfALostLeaseLeavesTheNewHolderUntouched() throws Exception {
        Contenders.Contender stale = contenders.add();
        Contenders.Contender next = contenders.add();
        String name = Contenders.lockName();
        Lease old = stale.locks().tryAcquire(name, LEASE).orElseThrow();
        stale.faults().blackhole("UpdateItem");
        Lease lease = next.locks().acquire(name, LEASE);
        Map<String, AttributeValue> before = contenders.item(name);
        stale.faults().clear();

        old.release();
        old.close();

        Map<String, AttributeValue> after = contenders.item(name);
        assertThat(after.get("owner")).isEqualTo(before.get("owner"));
        assertThat(after.get("fence")).isEqualTo(before.get("fence"));
        assertThat(lease.isHeld()).isTrue();
        assertThat(heldCheckPasses(lease)).isTrue();
    }

    @Test
    void transactWriteSendsTheHeldCheckFirstAndThenTheItems() {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        TransactWriteItem put = TransactWriteItem.builder()
                .put(Put.builder()
                        .tableName(table.name())
                        .item(Map.of(
                                table.partitionKey(), AttributeValue.fromS("ORDER#1"),
                                table.sortKey().orElseThrow(), AttributeValue.fromS("ORDER")))
                        .build())
                .build();
        a.requests().clear();

        try {
            lease.transactWrite(put);
        } catch (RuntimeException e) {
            // an engine without transactions refuses the request; its shape is what this test checks
        }

        RequestRecorder.Sent sent = a.requests().sent().get(0);
        assertThat(sent.operation()).isEqualTo("TransactWriteItems");
        var request = (software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest) sent.request();
        assertThat(request.transactItems()).containsExactly(lease.heldCheck(), put);
    }

    @Test
    void transactWriteOnAnEndedLeaseThrowsWithoutSending() {
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();
        lease.release();
        a.requests().clear();

        assertThatThrownBy(() -> lease.transactWrite())
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(lease.name())
                .hasMessageContaining("RELEASED");
        assertThat(a.requests().operations()).isEmpty();
    }
}
