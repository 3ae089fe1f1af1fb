package io.locktable.spring.autoconfigure;

import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * Adjusts the {@link DynamoDbClientBuilder} of the client the starter builds for the locks when the context has no
 * {@code DynamoDbClient}, after the endpoint, region and credentials of {@code locktable.dynamodb.*} (or the
 * connection details) were set: its HTTP client, its retry strategy, an interceptor for tracing. Every bean of this
 * type is applied, in {@link org.springframework.core.Ordered order}. It is not applied to a client the application
 * defines itself.
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
