package io.locktable.spring.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code DynamoDbClient} (or {@code DynamoDbAsyncClient}) the auto-configured {@link io.locktable.LockTable}
 * uses, over every other client of the context: for a context with several clients, or whose main one the locks
 * cannot use, such as a DAX client.
 *
 * <pre>{@code
 * @Bean
 * @LockTableDynamoDbClient
 * DynamoDbClient lockClient() {
 *     return DynamoDbClient.create();
 * }
 * }</pre>
 *
 * <p>With {@code @Bean(defaultCandidate = false)}, the rest of the application keeps getting its own client.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface LockTableDynamoDbClient {}
