package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * An election of the runner ended by an error that is not transient (an item of the application's at the lock's key)
 * is started again a lease later, and leads once the item is gone. On the engine: only a real table holds such an
 * item.
 */
@DynamoDbEngineTest
class LeaderRunnerForeignItemTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WITHIN = Duration.ofSeconds(10);

    private final TestTable table;
    private final String name = "job-" + UUID.randomUUID();
    private final List<LeaderRunner> runners = new java.util.ArrayList<>();
    private final List<LockTable> tables = new java.util.ArrayList<>();

    LeaderRunnerForeignItemTest(TestTable table) {
        this.table = table;
    }

    @AfterEach
    void close() {
        runners.forEach(LeaderRunner::stop);
        tables.forEach(LockTable::close);
    }

    private LeaderRunner runner() {
        LockTable locks = LockTable.builder(table.engine().client(), table.name(), table.partitionKey())
                .sortKey(table.sortKey().orElseThrow())
                .build();
        tables.add(locks);
        LeaderRunner runner = new LeaderRunner(locks);
        runner.register(name, LEASE);
        runners.add(runner);
        return runner;
    }

    private Map<String, AttributeValue> key() {
        Map<String, AttributeValue> key = new HashMap<>();
        key.put(table.partitionKey(), AttributeValue.fromS("LOCK#" + name));
        key.put(table.sortKey().orElseThrow(), AttributeValue.fromS("LOCK"));
        return key;
    }

    @Test
    void anElectionEndedByAForeignItemIsStartedAgainALeaseLaterAndLeadsOnceTheItemIsGone() {
        Map<String, AttributeValue> foreign = new HashMap<>(key());
        foreign.put("payload", AttributeValue.fromS("an application's own item at the lock's key"));
        table.engine().client().putItem(put -> put.tableName(table.name()).item(foreign));
        LeaderRunner runner = runner();
        runner.start();

        await().atMost(WITHIN)
                .until(() -> runner.status(name).orElseThrow().lastError().isPresent());
        assertThat(runner.status(name).orElseThrow().lastError().orElseThrow())
                .contains("LockItemConflictException")
                .contains(name);
        assertThat(runner.isLeader(name)).isFalse();

        table.engine()
                .client()
                .deleteItem(delete -> delete.tableName(table.name()).key(key()));
        await().atMost(LEASE.multipliedBy(2).plus(WITHIN)).until(() -> runner.isLeader(name));
        assertThat(runner.status(name).orElseThrow().state()).isEqualTo(LeadershipState.LEADING);
    }
}
