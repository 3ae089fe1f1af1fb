package io.locktable.spring.autoconfigure;

import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * Where the {@code DynamoDbClient} the starter builds connects; a bean of this type wins over {@code
 * locktable.dynamodb.*}. With {@code lock-spring-boot-test}, {@code @ServiceConnection} provides one:
 *
 * <pre>{@code
 * @Container
 * @ServiceConnection(name = "locktable")
 * static GenericContainer<?> dynamodb = new GenericContainer<>("amazon/dynamodb-local:2.6.0").withExposedPorts(8000);
 * }</pre>
 */
public interface LockTableConnectionDetails extends ConnectionDetails {

    /**
     * The endpoint.
     *
     * @return such as {@code http://localhost:8000}, or null for the region's AWS endpoint
     */
    URI getEndpoint();

    /**
     * The region.
     *
     * @return such as {@code eu-west-1}, or null for the SDK's default region chain
     */
    String getRegion();

    /**
     * The credentials; a local engine takes any.
     *
     * @return the credentials, or null (the default) for the SDK's default chain
     */
    default @Nullable AwsCredentialsProvider getCredentialsProvider() {
        return null;
    }
}
