package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import ch.qos.logback.classic.Level;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineAssumptions;
import io.locktable.test.EngineCapability;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * {@link LockTable#createTableIfMissing()} and the time-to-live side of {@link LockTable#verify()}, on the engine: a
 * table made for the locks (with its time to live on the items' attribute where the engine has that API), and one
 * WARN where the table's time to live is not on it.
 */
@DynamoDbEngineTest
class TableCreationTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final LockTableOptions EXPIRING = LockTableOptions.builder()
            .timeToLive("expiresAt", Duration.ofDays(7))
            .build();

    private final DynamoDbEngine engine;
    private final TestTable table;

    TableCreationTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
    }

    @Test
    void aMissingTableIsCreatedOnceWithTheLockTablesKeysAndThenHoldsLocks() {
        String created = engine.uniqueTableName("created");
        try (LockTable locks = LockTable.builder(engine.client(), created, "id")
                        .sortKey("kind")
                        .build();
                LockTable again = LockTable.builder(engine.client(), created, "id")
                        .sortKey("kind")
                        .build()) {
            assertThat(locks.createTableIfMissing()).as("created").isTrue();
            assertThat(again.createTableIfMissing()).as("it exists now").isFalse();
            locks.verify(); // the keys it was made with are the ones it is checked for
            assertThat(locks.tryAcquire("made", LEASE)).isPresent();
        } finally {
            engine.deleteTable(created);
        }
    }

    @Test
    void aTableCreatedForExpiringItemsGetsItsTimeToLiveOnTheirAttribute() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TIME_TO_LIVE);
        String created = engine.uniqueTableName("ttl-created");
        try (LockTable locks = LockTable.builder(engine.client(), created, "pk")
                        .options(EXPIRING)
                        .build();
                LogCapture log = new LogCapture()) {
            assertThat(locks.createTableIfMissing()).isTrue();
            locks.verify();

            TimeToLiveDescription description = engine.client()
                    .describeTimeToLive(r -> r.tableName(created))
                    .timeToLiveDescription();
            assertThat(description.attributeName()).isEqualTo("expiresAt");
            assertThat(description.timeToLiveStatus()).isIn(TimeToLiveStatus.ENABLED, TimeToLiveStatus.ENABLING);
            assertThat(log.atLeast(Level.WARN)).as("nothing to warn of").isEmpty();
        } finally {
            engine.deleteTable(created);
        }
    }

    @Test
    void whereTheEngineCannotEnableTheTimeToLiveTheTableIsCreatedAndOneWarnSaysSo() {
        assumeFalse(engine.supports(EngineCapability.TIME_TO_LIVE), "the engine has the time-to-live API");
        String created = engine.uniqueTableName("ttl-refused");
        try (LockTable locks = LockTable.builder(engine.client(), created, "pk")
                        .options(EXPIRING)
                        .build();
                LogCapture log = new LogCapture()) {
            assertThat(locks.createTableIfMissing()).isTrue();
            locks.verify();
            assertThat(locks.tryAcquire("works", LEASE)).isPresent();

            List<String> warnings = log.atLeast(Level.WARN);
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0))
                    .startsWith("Could not enable the time to live of the lock table '" + created + "' on 'expiresAt'");
        } finally {
            engine.deleteTable(created);
        }
    }

    @Test
    void anExistingTableWhoseTimeToLiveIsOffIsReportedInOneWarnByVerify() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TIME_TO_LIVE);
        LockTable.Builder builder = LockTable.builder(engine.client(), table.name(), table.partitionKey())
                .options(EXPIRING);
        table.sortKey().ifPresent(builder::sortKey);
        try (LockTable locks = builder.build();
                LogCapture log = new LogCapture()) {
            assertThat(locks.createTableIfMissing()).isFalse();
            locks.verify();

            assertThat(log.atLeast(Level.WARN))
                    .singleElement()
                    .asString()
                    .startsWith("The lock items of table '" + table.name()
                            + "' carry the time-to-live attribute 'expiresAt', but the table's time to live is ")
                    .contains("Enable it on 'expiresAt'");
        }
    }

    @Test
    void anInMemoryTableAlwaysExistsAndSendsNothing() {
        try (LockTable locks = LockTable.inMemory(engine.uniqueTableName("memory"))
                .options(EXPIRING)
                .build()) {
            assertThat(locks.createTableIfMissing()).isFalse();
            locks.verify();
        }
    }
}
