package io.locktable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/** Checks with {@code DescribeTable} that a table fits the lock protocol: string keys as named, one region. */
final class TableVerifier {

    private final DynamoDbClient client;
    private final String tableName;
    private final String partitionKey;
    private final String sortKey;

    TableVerifier(DynamoDbClient client, String tableName, String partitionKey, String sortKey) {
        this.client = client;
        this.tableName = tableName;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
    }

    void verify() {
        TableDescription table =
                client.describeTable(r -> r.tableName(tableName)).table();
        List<String> problems = new ArrayList<>();
        String actualHash = keyName(table, KeyType.HASH);
        String actualRange = keyName(table, KeyType.RANGE);
        if (!partitionKey.equals(actualHash)) {
            problems.add("its partition key is '" + actualHash + "', not '" + partitionKey + "'");
        }
        if (sortKey == null && actualRange != null) {
            problems.add("it has a sort key '" + actualRange + "' that the lock table was not given");
        } else if (sortKey != null && !sortKey.equals(actualRange)) {
            problems.add(
                    actualRange == null
                            ? "it has no sort key, but the lock table was given '" + sortKey + "'"
                            : "its sort key is '" + actualRange + "', not '" + sortKey + "'");
        }
        Map<String, ScalarAttributeType> types = table.attributeDefinitions().stream()
                .collect(Collectors.toMap(AttributeDefinition::attributeName, AttributeDefinition::attributeType));
        for (String key : new String[] {actualHash, actualRange}) {
            if (key != null && types.get(key) != ScalarAttributeType.S) {
                problems.add("its key attribute '" + key + "' is of type " + types.get(key) + ", not a string (S)");
            }
        }
        if (table.hasReplicas() && !table.replicas().isEmpty()) {
            problems.add(
                    "it is a global table with replicas in " + table.replicas().size()
                            + " regions; a lock table must have a single writing region, or a lock can be granted twice");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(
                    "Table '" + tableName + "' cannot hold locks: " + String.join("; ", problems));
        }
    }

    private static String keyName(TableDescription table, KeyType type) {
        return table.keySchema().stream()
                .filter(k -> k.keyType() == type)
                .map(KeySchemaElement::attributeName)
                .findFirst()
                .orElse(null);
    }
}
