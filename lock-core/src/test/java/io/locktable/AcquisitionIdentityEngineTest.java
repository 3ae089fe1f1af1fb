package io.locktable;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * One identity per acquisition (issue 23, point 6), over an engine: a held check kept past its release fails in a
 * transaction for the next acquisition of the same table. The release and renewal are in {@link
 * AcquisitionIdentityTest}, in memory.
 */
@DynamoDbEngineTest
class AcquisitionIdentityEngineTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    AcquisitionIdentityEngineTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aReleasedLeasesHeldCheckFailsForTheNextAcquisitionOfTheSameTable() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        LockTable locks = contenders.add().locks();
        Lease first = locks.tryAcquire(name, LEASE).orElseThrow();
        TransactWriteItem firstCheck = first.heldCheck(); // kept by the caller past the release
        first.release();
        contenders.deleteItem(name);
        Lease second = locks.tryAcquire(name, LEASE).orElseThrow();

        assertThatThrownBy(() -> engine.client().transactWriteItems(r -> r.transactItems(firstCheck, putRecord())))
                .as("the old check does not pass for the new acquisition")
                .hasMessageContaining("ConditionalCheckFailed");
        engine.client().transactWriteItems(r -> r.transactItems(second.heldCheck(), putRecord()));
    }

    private TransactWriteItem putRecord() {
        Map<String, AttributeValue> item = new java.util.HashMap<>();
        item.put(table.partitionKey(), AttributeValue.fromS("RECORD#" + name));
        table.sortKey().ifPresent(sk -> item.put(sk, AttributeValue.fromS("RECORD")));
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item))
                .build();
    }
}
