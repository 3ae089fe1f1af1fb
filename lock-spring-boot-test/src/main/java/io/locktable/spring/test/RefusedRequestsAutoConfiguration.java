package io.locktable.spring.test;

import io.locktable.spring.autoconfigure.LockTableConnectionDetails;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientBuilderCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * In a test whose engine {@link LockTableTestProperties#register register} chose ({@value #PROPERTY}{@code =fail}),
 * watches the client the starter builds for requests the engine refuses as unsupported; {@link
 * RefusedRequestsTestExecutionListener} then fails the test with what was refused and the fix. A context that
 * defines its own {@code DynamoDbClient} is not watched: the starter builds none.
 */
@AutoConfiguration
@ConditionalOnClass(DynamoDbClient.class)
@ConditionalOnProperty(name = RefusedRequestsAutoConfiguration.PROPERTY, havingValue = "fail")
public final class RefusedRequestsAutoConfiguration {

    /** The property that {@link LockTableTestProperties} sets to {@code fail}. */
    static final String PROPERTY = "locktable.test.unsupported-requests";

    RefusedRequestsAutoConfiguration() {}

    @Bean
    RefusedRequests lockTableRefusedRequests(LockTableConnectionDetails connection) {
        return new RefusedRequests(connection.getEndpoint());
    }

    @Bean
    LockTableDynamoDbClientBuilderCustomizer lockTableRefusedRequestsInterceptor(RefusedRequests refused) {
        // added to what other customizers configured, not in place of it
        return builder -> builder.overrideConfiguration(builder.overrideConfiguration().toBuilder()
                .addExecutionInterceptor(new RefusedRequestInterceptor(refused))
                .build());
    }
}
