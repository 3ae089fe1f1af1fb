package io.locktable.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * A {@link DynamoDbClient} for the locks when the context has none: {@code locktable.dynamodb.endpoint} and {@code
 * locktable.dynamodb.region} when set, otherwise the SDK's default region chain, and always the default
 * credentials chain. Ordered after Spring Cloud AWS's DynamoDB auto-configuration, whose client is used when it is
 * there.
 */
@AutoConfiguration(afterName = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration")
@ConditionalOnClass(DynamoDbClient.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableDynamoDbClientAutoConfiguration {

    LockTableDynamoDbClientAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    DynamoDbClient dynamoDbClient(LockTableProperties properties) {
        LockTableProperties.Dynamodb settings = properties.getDynamodb();
        DynamoDbClientBuilder builder = DynamoDbClient.builder();
        if (settings.getEndpoint() != null) {
            builder.endpointOverride(settings.getEndpoint());
        }
        if (settings.getRegion() != null && !settings.getRegion().isBlank()) {
            builder.region(Region.of(settings.getRegion().trim()));
        }
        try {
            return builder.build();
        } catch (SdkClientException e) {
            throw new LockTableConfigurationException(
                    "The DynamoDB client for the locks could not be built: " + e.getMessage(),
                    "Set locktable.dynamodb.region (or AWS_REGION), or define a DynamoDbClient bean of your own.",
                    e);
        }
    }
}
