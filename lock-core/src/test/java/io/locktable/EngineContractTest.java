package io.locktable;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The contract on the run's engine (dynalite, or moto with {@code -Dlocktable.test.engine=moto}). */
@DynamoDbEngineTest
class EngineContractTest extends LockTableContract {

    private final TestTable table;

    private final DynamoDbClient client; // the engine's shared client, closed with the engine

    EngineContractTest(DynamoDbEngine engine, TestTable table) {
        this.table = table;
        this.client = engine.client();
    }

    @Override
    LockTable.Builder tableBuilder() {
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        return builder;
    }
}
