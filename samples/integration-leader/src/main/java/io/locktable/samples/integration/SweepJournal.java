package io.locktable.samples.integration;

import io.locktable.LockTable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The system that checks tokens: the sweep journal, one item of the lock table whose appends are applied only
 * with a fencing token at least as high as the last one applied, so a leader that lost its lease without knowing it is
 * refused here. Each entry is {@code <token> <instance> <step>}. (One item keeps the sample short; it grows by one
 * entry a sweep, so a real journal would be spread over items.)
 */
@Component
class SweepJournal {

    private final DynamoDbClient client;
    private final String table;
    private final Map<String, AttributeValue> key = new HashMap<>();

    SweepJournal(DynamoDbClient client, LockTable locks) {
        this.client = client;
        this.table = locks.tableName();
        key.put(locks.partitionKey(), AttributeValue.fromS("JOURNAL#order-sweeper"));
        locks.sortKey().ifPresent(sortKey -> key.put(sortKey, AttributeValue.fromS("JOURNAL")));
    }

    /** Appends an entry if no higher token was applied before; false when refused. */
    boolean append(long fence, String instance, String step) {
        try {
            client.updateItem(r -> r.tableName(table)
                    .key(key)
                    .updateExpression(
                            "SET lastFence = :fence, entries = list_append(if_not_exists(entries, :empty), :entry)")
                    .conditionExpression("attribute_not_exists(lastFence) OR lastFence <= :fence")
                    .expressionAttributeValues(Map.of(
                            ":fence", AttributeValue.fromN(Long.toString(fence)),
                            ":empty", AttributeValue.fromL(List.of()),
                            ":entry",
                                    AttributeValue.fromL(
                                            List.of(AttributeValue.fromS(fence + " " + instance + " " + step))))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    /** The entries in the order they were applied, each {@code <token> <instance> <step>}. */
    List<String> entries() {
        Map<String, AttributeValue> item = client.getItem(
                        r -> r.tableName(table).key(key).consistentRead(true))
                .item();
        if (item == null || !item.containsKey("entries")) {
            return List.of();
        }
        return item.get("entries").l().stream().map(AttributeValue::s).toList();
    }
}
