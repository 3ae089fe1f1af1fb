package io.locktable.spring.autoconfigure;

import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * Where the DynamoDB client of the locks connects, when the starter builds it (the context has no {@code
 * DynamoDbClient} of its own). Without a bean of this type the starter uses {@code locktable.dynamodb.endpoint} and
 * {@code locktable.dynamodb.region}; a bean of it wins over them. In tests, {@code @ServiceConnection} on a
 * Testcontainers container of a DynamoDB-compatible engine provides one, with {@code lock-spring-boot-test} on the
 * class path:
 *
 * <pre>{@code
 * @Container
 * @ServiceConnection(name = "locktable")
 * static GenericContainer<?> dynamodb = new GenericContainer<>("amazon/dynamodb-local:2.6.0").withExposedPorts(8000);
 * }</pre>
 */
public interface LockTableConnectionDetails extends ConnectionDetails {

    /**
     * The endpoint the client connects to.
     *
     * @return the endpoint, such as {@code http://localhost:8000}, or null for the region's AWS endpoint
     */
    URI getEndpoint();

    /**
     * The region of the client.
     *
     * @return the region, such as {@code eu-west-1}, or null for the SDK's default region chain
     */
    String getRegion();

    /**
     * The credentials of the client. A local engine takes any.
     *
     * @return the credentials, or null (the default) for the SDK's default credentials chain
     */
    default @Nullable AwsCredentialsProvider getCredentialsProvider() {
        return null;
    }
}
