package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
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
 * One identity per acquisition (issue 23, point 6): after the lock's item is deleted behind the holders' backs, a
 * second acquisition by the same table shares nothing a release, a renewal or a held check compares with the first.
 */
@DynamoDbEngineTest
class AcquisitionIdentityTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    AcquisitionIdentityTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void twoAcquisitionsOfOneTableNeverShareAnOwner() {
        LockTable locks = contenders.add().locks();
        Lease first = locks.tryAcquire(name, LEASE).orElseThrow();
        first.release();
        Lease second = locks.tryAcquire(name, LEASE).orElseThrow();

        assertThat(second.owner()).isNotEqualTo(first.owner());
        assertThat(first.owner()).startsWith(locks.owner() + ".");
        assertThat(second.owner()).startsWith(locks.owner() + ".");
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(second.owner());
    }

    @Test
    void aRecreatedItemContinuesTheFenceAndTheOldLeaseNeitherReleasesNorRenewsTheNewOne() throws Exception {
        LockTable locks = contenders.add().locks();
        Lease first = locks.tryAcquire(name, LEASE).orElseThrow();
        contenders.deleteItem(name); // an operator, a restore, a time to live set up by someone else

        Lease second = locks.tryAcquire(name, LEASE).orElseThrow();

        assertThat(second.fencingToken())
                .as("continues from the highest fence this table knows")
                .isEqualTo(first.fencingToken() + 1);
        first.release(); // believed held still: its release is sent, and must not free the second
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(second.owner());
        assertThat(contenders.add().locks().tryAcquire(name, LEASE))
                .as("the second is held")
                .isEmpty();
        assertThat(second.isHeld()).isTrue();
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
