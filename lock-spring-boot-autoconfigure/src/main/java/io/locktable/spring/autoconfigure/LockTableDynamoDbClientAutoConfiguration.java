package io.locktable.spring.autoconfigure;

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
 * A {@link DynamoDbClient} for the locks when the context has none, connected as the context's {@link
 * LockTableConnectionDetails} say: a bean of the application's or of {@code @ServiceConnection}, else {@code
 * locktable.dynamodb.endpoint} and {@code locktable.dynamodb.region} when set, otherwise the SDK's default region
 * chain; the default credentials chain unless the connection details give credentials; then every {@link
 * LockTableDynamoDbClientBuilderCustomizer}, in order. Ordered after Spring Cloud
 * AWS's DynamoDB auto-configuration, whose client is used when it is there. A context that has a {@link
 * DynamoDbAsyncClient} and no {@code DynamoDbClient} gets none: the locks use its asynchronous client.
 *
 * <p>Also built in the test mode {@code locktable.test.in-memory}, where the locks are in memory and do not use it:
 * the application's own beans inject the client, and building it sends no request. There a client without a region set
 * takes the region of {@code aws.region}, {@code AWS_REGION} or the AWS profile, else {@code us-east-1}, so that a
 * test starts on a machine without any AWS settings, and never waits on instance metadata for one.
 */
@AutoConfiguration(afterName = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration")
@ConditionalOnClass(DynamoDbClient.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableDynamoDbClientAutoConfiguration {

    LockTableDynamoDbClientAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(LockTableConnectionDetails.class)
    PropertiesLockTableConnectionDetails lockTableConnectionDetails(LockTableProperties properties) {
        return new PropertiesLockTableConnectionDetails(properties);
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

    /**
     * The region of a client in the test mode: that of the system property, the environment variable or the AWS
     * profile, else {@code us-east-1}; never instance metadata, which the SDK's default chain would wait on.
     */
    private static Region testRegion() {
        try {
            return new AwsRegionProviderChain(new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
                    .getRegion();
        } catch (SdkClientException e) {
            return Region.US_EAST_1;
        }
    }
}
