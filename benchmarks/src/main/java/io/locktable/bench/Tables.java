package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.CreateDynamoDBTableOptions;
import io.locktable.test.DynamoDbEngine;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;

/**
 * Creates the tables of a run: a LockTable table keyed by {@value #OURS_KEY}, and a peer table made the way the peer's
 * README advises, with {@code createLockTableInDynamoDB} and its key {@value #PEER_KEY}.
 */
public final class Tables {

    /** The partition key of LockTable tables. */
    public static final String OURS_KEY = "pk";

    /** The partition key the peer expects. */
    public static final String PEER_KEY = "key";

    private static final long CAPACITY = 10_000L;

    private Tables() {}

    /**
     * Creates a table for LockTable (string partition key, no sort key, billed per request).
     *
     * @param engine the engine
     * @param prefix the start of its name
     * @return the table name
     */
    public static String ours(DynamoDbEngine engine, String prefix) {
        return engine.createTable(prefix, OURS_KEY, null).name();
    }

    /**
     * Creates a table for the peer with its own helper. dynalite does not throttle, so the provisioned capacity
     * given here does not limit anything.
     *
     * @param client a client of the engine
     * @param prefix the start of its name
     * @return the table name
     */
    public static String peer(DynamoDbClient client, String prefix) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        ProvisionedThroughput throughput = ProvisionedThroughput.builder()
                .readCapacityUnits(CAPACITY)
                .writeCapacityUnits(CAPACITY)
                .build();
        AmazonDynamoDBLockClient.createLockTableInDynamoDB(
                CreateDynamoDBTableOptions.builder(client, throughput, name).build());
        client.waiter().waitUntilTableExists(r -> r.tableName(name));
        return name;
    }
}
