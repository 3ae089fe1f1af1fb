package io.locktable.spring.autoconfigure;

import java.net.URI;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * A {@link DynamoDbClient} for the locks when the context has no DynamoDB client (ordered after Spring Cloud AWS's,
 * which is used when there), connected as the {@link LockTableConnectionDetails} say, by default those of {@code
 * locktable.dynamodb.*}, then adjusted by every {@link LockTableDynamoDbClientBuilderCustomizer}. Without a region,
 * the SDK's default chain, except in the in-memory test mode: there {@code aws.region}, {@code AWS_REGION} or the
 * profile, else {@code us-east-1}, so that a test never waits on instance metadata.
 */
@AutoConfiguration(afterName = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration")
@ConditionalOnClass(DynamoDbClient.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableDynamoDbClientAutoConfiguration {

    LockTableDynamoDbClientAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    LockTableConnectionDetails lockTableConnectionDetails(LockTableProperties properties) {
        return new LockTableConnectionDetails() {
            @Override
            public URI getEndpoint() {
                return properties.getDynamodb().getEndpoint();
            }

            @Override
            public String getRegion() {
                return properties.getDynamodb().getRegion();
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean({DynamoDbClient.class, DynamoDbAsyncClient.class})
    DynamoDbClient dynamoDbClient(
            LockTableConnectionDetails connection,
            Environment environment,
            ConfigurableListableBeanFactory beanFactory,
            ObjectProvider<LockTableDynamoDbClientBuilderCustomizer> customizers) {
        DynamoDbClientBuilder builder = DynamoDbClient.builder();
        if (connection.getEndpoint() != null) {
            builder.endpointOverride(connection.getEndpoint());
        }
        String region = connection.getRegion();
        if (region != null && !region.isBlank()) {
            builder.region(Region.of(region.trim()));
        } else if (InMemoryTestMode.isOn(environment, beanFactory.getBeanClassLoader())) {
            builder.region(testRegion());
        }
        if (connection.getCredentialsProvider() != null) {
            builder.credentialsProvider(connection.getCredentialsProvider());
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        try {
            return builder.build();
        } catch (SdkClientException e) {
            throw new LockTableConfigurationException(
                    "The DynamoDB client for the locks could not be built: " + e.getMessage(),
                    "Set locktable.dynamodb.region (or AWS_REGION), or define a DynamoDbClient bean of your own.",
                    e);
        }
    }

    private static Region testRegion() {
        try {
            return new AwsRegionProviderChain(new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
                    .getRegion();
        } catch (SdkClientException e) {
            return Region.US_EAST_1;
        }
    }
}
