package io.locktable.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against the selected DynamoDB-compatible engine ({@link DynamoDbEngines#current()}): its
 * constructor, lifecycle and test methods may take {@link DynamoDbEngine}, {@link
 * software.amazon.awssdk.services.dynamodb.DynamoDbClient} and {@link TestTable} parameters.
 *
 * <pre>{@code
 * @DynamoDbEngineTest
 * class LockTest {
 *     @Test
 *     void takesALock(DynamoDbClient client, TestTable table) { ... }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(DynamoDbEngineExtension.class)
public @interface DynamoDbEngineTest {}
