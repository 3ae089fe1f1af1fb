package io.locktable.test;

import java.util.Objects;
import java.util.Optional;

/**
 * A table created for a test, with string key attributes.
 *
 * @param name the table name
 * @param partitionKey the partition key attribute
 * @param sortKey the sort key attribute, if the table has one
 * @param engine the engine that holds it
 */
public record TestTable(String name, String partitionKey, Optional<String> sortKey, DynamoDbEngine engine) {

    /** Checks that no component is null. */
    public TestTable {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(partitionKey, "partitionKey");
        Objects.requireNonNull(sortKey, "sortKey");
        Objects.requireNonNull(engine, "engine");
    }
}
