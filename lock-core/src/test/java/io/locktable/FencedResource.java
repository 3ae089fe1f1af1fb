package io.locktable;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The system that checks tokens: one item per lock whose writes are applied only with a fencing token at least as
 * high as the last one applied (a conditional update, which works on every engine).
 */
final class FencedResource {

    private final DynamoDbClient client;
    private final String table;
    private final String partitionKey;
    private final String sortKey;

    FencedResource(DynamoDbClient client, io.locktable.test.TestTable table) {
        this(client, table.name(), table.partitionKey(), table.sortKey().orElse(null));
    }

    FencedResource(DynamoDbClient client, String table, String partitionKey, String sortKey) {
        this.client = client;
        this.table = table;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
    }

    private Map<String, AttributeValue> key(String lock) {
        return sortKey == null
                ? Map.of(partitionKey, AttributeValue.fromS("RESOURCE#" + lock))
                : Map.of(
                        partitionKey,
                        AttributeValue.fromS("RESOURCE#" + lock),
                        sortKey,
                        AttributeValue.fromS("RESOURCE"));
    }

    /** The writer of the last write applied, read consistently. */
    String lastWriter(String lock) {
        return client.getItem(r -> r.tableName(table).key(key(lock)).consistentRead(true))
                .item()
                .get("lastWriter")
                .s();
    }

    /** Writes with a token; true when applied, false when refused because a higher token was applied before. */
    boolean write(String lock, long fence, String writer) {
        try {
            client.updateItem(r -> r.tableName(table)
                    .key(key(lock))
                    .updateExpression("SET lastFence = :fence, lastWriter = :writer ADD writes :one")
                    .conditionExpression("attribute_not_exists(lastFence) OR lastFence <= :fence")
                    .expressionAttributeValues(Map.of(
                            ":fence", AttributeValue.fromN(Long.toString(fence)),
                            ":writer", AttributeValue.fromS(writer),
                            ":one", AttributeValue.fromN("1"))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }
}
