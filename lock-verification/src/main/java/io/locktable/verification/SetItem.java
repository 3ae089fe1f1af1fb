package io.locktable.verification;

import io.locktable.Lease;
import io.locktable.test.TestTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The shared set of the workload: one item of the test table, with the elements ({@code elems}, a string set), the
 * fencing token of each write applied in order ({@code log}) and, for {@link Variant#FENCING_TOKEN}, the highest
 * token that touched it ({@code tok}). A client reads it, adds one element and writes the whole item back.
 */
final class SetItem {

    /** A read of the set: its elements and its log, as one client saw them. */
    record Snapshot(Set<Long> elements, List<Long> log) {

        Snapshot with(long element, long token) {
            Set<Long> elements = new HashSet<>(this.elements);
            elements.add(element);
            List<Long> log = new ArrayList<>(this.log);
            log.add(token);
            return new Snapshot(elements, log);
        }
    }

    private final String table;
    private final Map<String, AttributeValue> key;

    SetItem(TestTable table, String id) {
        this.table = table.name();
        Map<String, AttributeValue> key = new HashMap<>();
        key.put(table.partitionKey(), AttributeValue.fromS("SET#" + id));
        table.sortKey().ifPresent(sk -> key.put(sk, AttributeValue.fromS("SET")));
        this.key = Map.copyOf(key);
    }

    /** A strongly consistent read. */
    Snapshot read(DynamoDbClient client) {
        return parse(client.getItem(r -> r.tableName(table).key(key).consistentRead(true))
                .item());
    }

    /**
     * A read that also raises the item's token to {@code token}; refused (ConditionalCheckFailedException) if a
     * higher token touched it already, so that no older holder's write can land after this read.
     */
    Snapshot fencedRead(DynamoDbClient client, long token) {
        return parse(client.updateItem(r -> r.tableName(table)
                        .key(key)
                        .updateExpression("SET #tok = :mine")
                        .conditionExpression("attribute_not_exists(#tok) OR #tok <= :mine")
                        .expressionAttributeNames(Map.of("#tok", "tok"))
                        .expressionAttributeValues(Map.of(":mine", number(token)))
                        .returnValues(ReturnValue.ALL_NEW))
                .attributes());
    }

    /** The negative control: the whole item, unconditionally. */
    void writeUnfenced(DynamoDbClient client, Snapshot next, long token) {
        client.putItem(r -> r.tableName(table).item(item(next, token)));
    }

    /** The whole item, if no token higher than {@code token} touched it. */
    void writeWithToken(DynamoDbClient client, Snapshot next, long token) {
        client.putItem(r -> r.tableName(table)
                .item(item(next, token))
                .conditionExpression("attribute_not_exists(#tok) OR #tok <= :mine")
                .expressionAttributeNames(Map.of("#tok", "tok"))
                .expressionAttributeValues(Map.of(":mine", number(token))));
    }

    /** The whole item in one transaction with the lease's held check. */
    void writeWithHeldCheck(Lease lease, Snapshot next) {
        lease.transactWrite(TransactWriteItem.builder()
                .put(Put.builder()
                        .tableName(table)
                        .item(item(next, lease.fencingToken()))
                        .build())
                .build());
    }

    private Map<String, AttributeValue> item(Snapshot next, long token) {
        Map<String, AttributeValue> item = new HashMap<>(key);
        if (!next.elements().isEmpty()) {
            item.put(
                    "elems",
                    AttributeValue.fromSs(
                            next.elements().stream().map(String::valueOf).toList()));
        }
        item.put(
                "log",
                AttributeValue.fromL(next.log().stream().map(SetItem::number).toList()));
        item.put("tok", number(token));
        return item;
    }

    private static Snapshot parse(Map<String, AttributeValue> item) {
        Set<Long> elements = new HashSet<>();
        List<Long> log = new ArrayList<>();
        if (item != null) {
            AttributeValue elems = item.get("elems");
            if (elems != null) {
                elems.ss().forEach(e -> elements.add(Long.parseLong(e)));
            }
            AttributeValue written = item.get("log");
            if (written != null) {
                written.l().forEach(v -> log.add(Long.parseLong(v.n())));
            }
        }
        return new Snapshot(elements, log);
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
