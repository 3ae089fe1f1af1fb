package io.locktable.spring.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code DynamoDbClient} that the auto-configured {@link io.locktable.LockTable} uses. When a bean with
 * this qualifier exists it wins over every other client of the context; without one the locks use the context's
 * single (or primary) client. Use it when the context has several clients, or when its main client is one the
 * locks cannot use, such as a DAX client.
 *
 * <p>It may mark a {@code DynamoDbAsyncClient} instead: the lock table is then built over that one (a marked {@code
 * DynamoDbClient} wins over it). A context without any {@code DynamoDbClient} uses its single (or primary) {@code
 * DynamoDbAsyncClient} unmarked; when it has both kinds, the synchronous client is used unless the asynchronous one
 * is marked.
 *
 * <pre>{@code
 * @Bean
 * @LockTableDynamoDbClient
 * DynamoDbClient lockClient() {
 *     return DynamoDbClient.create();
 * }
 * }</pre>
 *
 * <p>Add {@code @Bean(defaultCandidate = false)} to keep such a client from being injected where a plain {@code
 * DynamoDbClient} is asked for, so the rest of the application keeps getting its own client.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface LockTableDynamoDbClient {}
