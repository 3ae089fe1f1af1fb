package io.locktable.spring.autoconfigure;

import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * Adjusts the builder of the {@code DynamoDbClient} the starter builds when the context has none, after the
 * connection details were set; every bean of this type, in {@link org.springframework.core.Ordered order}.
 *
 * <pre>{@code
 * @Bean
 * LockTableDynamoDbClientBuilderCustomizer tracedLockClient(ExecutionInterceptor tracing) {
 *     return builder -> builder.overrideConfiguration(o -> o.addExecutionInterceptor(tracing));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface LockTableDynamoDbClientBuilderCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder of the client the starter builds for the locks
     */
    void customize(DynamoDbClientBuilder builder);
}
