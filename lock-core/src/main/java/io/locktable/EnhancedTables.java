package io.locktable;

import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import software.amazon.awssdk.enhanced.dynamodb.MappedTableResource;
import software.amazon.awssdk.enhanced.dynamodb.TableMetadata;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** Reads a table's name and keys from the enhanced client, kept apart so that client stays an optional dependency. */
final class EnhancedTables {

    private EnhancedTables() {}

    /**
     * A builder for the table of the enhanced client, synchronous or asynchronous.
     *
     * @param builder makes the builder of a table name and partition key, over the user's client
     */
    static LockTable.Builder builderFor(
            MappedTableResource<?> table, BiFunction<String, String, LockTable.Builder> builder) {
        Objects.requireNonNull(table, "table");
        TableMetadata metadata = table.tableSchema().tableMetadata();
        String partitionKey = metadata.primaryPartitionKey();
        checkString(table.tableName(), metadata, partitionKey);
        LockTable.Builder started = builder.apply(table.tableName(), partitionKey);
        Optional<String> sortKey = metadata.primarySortKey();
        if (sortKey.isPresent()) {
            checkString(table.tableName(), metadata, sortKey.get());
            started.sortKey(sortKey.get());
        }
        return started;
    }

    private static void checkString(String tableName, TableMetadata metadata, String key) {
        Optional<ScalarAttributeType> type = metadata.scalarAttributeType(key);
        if (type.isPresent() && type.get() != ScalarAttributeType.S) {
            throw new IllegalArgumentException("key attribute '" + key + "' of table " + tableName + " is of type "
                    + type.get() + "; lock items need string keys");
        }
    }
}
