package io.locktable;

import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The contract on the run's engine through the asynchronous client ({@link LockTable#builder(DynamoDbAsyncClient,
 * String, String)}): the same cases as {@link EngineContractTest}, whose tables use the synchronous client.
 */
@DynamoDbEngineTest
class AsyncClientContractTest extends LockTableContract {

    private final TestTable table;

    private final DynamoDbAsyncClient client; // the engine's shared asynchronous client, closed with the JVM

    AsyncClientContractTest(DynamoDbAsyncClient client, TestTable table) {
        this.table = table;
        this.client = client;
    }

    @Override
    LockTable.Builder tableBuilder() {
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        return builder;
    }
}
