package io.locktable.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Chooses the key attributes of a {@link TestTable} parameter; without it the table has {@code pk} and {@code sk}.
 *
 * <pre>{@code
 * @Test
 * void worksWithoutASortKey(@TableKeys(partitionKey = "id", sortKey = "") TestTable table) { ... }
 * }</pre>
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
public @interface TableKeys {

    /**
     * The partition key attribute.
     *
     * @return its name
     */
    String partitionKey() default "pk";

    /**
     * The sort key attribute; empty for a table without one.
     *
     * @return its name, or empty
     */
    String sortKey() default "sk";
}
