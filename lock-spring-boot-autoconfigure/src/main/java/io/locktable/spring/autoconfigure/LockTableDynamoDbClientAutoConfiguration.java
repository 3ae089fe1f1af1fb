package io.locktable.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * A {@link DynamoDbClient} for the locks when the context has none, connected as the context's {@link
 * LockTableConnectionDetails} say: a bean of the application's or of {@code @ServiceConnection}, else {@code
 * locktable.dynamodb.endpoint} and {@code locktable.dynamodb.region} when set, otherwise the SDK's default region
 * chain; the default credentials chain unless the connection details give credentials. Ordered after Spring Cloud
 * AWS's DynamoDB auto-configuration, whose client is used when it is there. Off in the test mode {@code
 * locktable.test.lead-everything}.
 */
@AutoConfiguration(afterName = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration")
@ConditionalOnClass(DynamoDbClient.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
@Conditional(LeadEverything.Off.class)
public final class LockTableDynamoDbClientAutoConfiguration {

    LockTableDynamoDbClientAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(LockTableConnectionDetails.class)
    PropertiesLockTableConnectionDetails lockTableConnectionDetails(LockTableProperties properties) {
        return new PropertiesLockTableConnectionDetails(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    DynamoDbClient dynamoDbClient(LockTableConnectionDetails connection) {
        DynamoDbClientBuilder builder = DynamoDbClient.builder();
        if (connection.getEndpoint() != null) {
            builder.endpointOverride(connection.getEndpoint());
        }
        String region = connection.getRegion();
        if (region != null && !region.isBlank()) {
            builder.region(Region.of(region.trim()));
        }
        if (connection.getCredentialsProvider() != null) {
            builder.credentialsProvider(connection.getCredentialsProvider());
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
