package io.locktable;

import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableMetadata;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** Reads a table's name and keys from the enhanced client, kept apart so that client stays an optional dependency. */
final class EnhancedTables {

    private EnhancedTables() {}

    static LockTable.Builder builderFor(DynamoDbClient client, DynamoDbTable<?> table) {
        Objects.requireNonNull(table, "table");
        TableMetadata metadata = table.tableSchema().tableMetadata();
        String partitionKey = metadata.primaryPartitionKey();
        checkString(table.tableName(), metadata, partitionKey);
        LockTable.Builder builder = LockTable.builder(client, table.tableName(), partitionKey);
        Optional<String> sortKey = metadata.primarySortKey();
        if (sortKey.isPresent()) {
            checkString(table.tableName(), metadata, sortKey.get());
            builder.sortKey(sortKey.get());
        }
        return builder;
    }

    private static void checkString(String tableName, TableMetadata metadata, String key) {
        Optional<ScalarAttributeType> type = metadata.scalarAttributeType(key);
        if (type.isPresent() && type.get() != ScalarAttributeType.S) {
            throw new IllegalArgumentException("key attribute '" + key + "' of table " + tableName + " is of type "
                    + type.get() + "; lock items need string keys");
        }
    }
}
