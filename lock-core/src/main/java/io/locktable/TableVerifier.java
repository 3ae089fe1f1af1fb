package io.locktable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * Checks with {@code DescribeTable} that a table fits the lock protocol (step 9): string keys as named, and one
 * writing region, or several with multi-Region strong consistency.
 */
final class TableVerifier {

    /** The first version of global tables: every replica takes writes, and conditions are checked per region. */
    static final String LEGACY_GLOBAL_TABLES = "2017.11.29";

    private final LockStore store;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final boolean timeToLive;

    TableVerifier(LockStore store, String partitionKey, @Nullable String sortKey, boolean timeToLive) {
        this.store = store;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
        this.timeToLive = timeToLive;
    }

    /**
     * Checks the table.
     *
     * @return true when it is a global table with multi-Region strong consistency: safe for locks from every
     *     region, but without transactions (so without fenced writes) and without time to live
     * @throws IllegalStateException naming the table and every problem found
     */
    boolean verify() {
        String tableName = store.tableName();
        TableDescription table = store.describe();
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
        boolean strong = table.multiRegionConsistency() == MultiRegionConsistency.STRONG;
        if (LEGACY_GLOBAL_TABLES.equals(table.globalTableVersion())) {
            problems.add("it is a global table of version " + LEGACY_GLOBAL_TABLES + ", whose replicas all take"
                    + " writes; a lock table must have a single writing region, or a lock can be granted twice");
        } else if (table.hasReplicas() && !table.replicas().isEmpty() && !strong) {
            problems.add(
                    "it is a global table with replicas in " + table.replicas().size() + " regions and eventual"
                            + " consistency across them; a lock table must have a single writing region, or a lock can be"
                            + " granted twice (a global table with multi-Region strong consistency is fine)");
        }
        if (strong && timeToLive) {
            problems.add("it is a global table with multi-Region strong consistency, which has no time to live;"
                    + " build the lock table without LockTableOptions.timeToLive");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(
                    "Table '" + tableName + "' cannot hold locks: " + String.join("; ", problems));
        }
        return strong;
    }

    private static String keyName(TableDescription table, KeyType type) {
        return table.keySchema().stream()
                .filter(k -> k.keyType() == type)
                .map(KeySchemaElement::attributeName)
                .findFirst()
                .orElse(null);
    }
}
