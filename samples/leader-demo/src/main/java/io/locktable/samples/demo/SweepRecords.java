package io.locktable.samples.demo;

import io.locktable.LockTable;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The system that checks tokens: the sweep log, one item whose appends are applied only with a fencing token at
 * least as high as the last one applied. A leader that lost its lease without knowing it is refused here.
 */
@Component
class SweepRecords {

    private static final Map<String, AttributeValue> KEY =
            Map.of("pk", AttributeValue.fromS("SWEEP#order-sweeper"), "sk", AttributeValue.fromS("LOG"));

    private final DynamoDbClient client;
    private final String table;

    SweepRecords(DynamoDbClient client, LockTable locks) {
        this.client = client;
        this.table = locks.tableName();
    }

    /** Appends a record if no higher token was applied before; false when refused. */
    boolean append(long fence, String record) {
        try {
            client.updateItem(r -> r.tableName(table)
                    .key(KEY)
                    .updateExpression(
                            "SET lastFence = :fence, records = list_append(if_not_exists(records, :empty), :record)")
                    .conditionExpression("attribute_not_exists(lastFence) OR lastFence <= :fence")
                    .expressionAttributeValues(Map.of(
                            ":fence", AttributeValue.fromN(Long.toString(fence)),
                            ":empty", AttributeValue.fromL(List.of()),
                            ":record", AttributeValue.fromL(List.of(AttributeValue.fromS(record))))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    /** The records in the order they were applied, each {@code fence:instance:run}. */
    List<String> all() {
        Map<String, AttributeValue> item = client.getItem(
                        r -> r.tableName(table).key(KEY).consistentRead(true))
                .item();
        if (item == null || !item.containsKey("records")) {
            return List.of();
        }
        return item.get("records").l().stream().map(AttributeValue::s).toList();
    }
}
