package io.locktable.spring.test;

import io.locktable.spring.autoconfigure.LockTableConnectionDetails;
import java.net.URI;
import java.util.List;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The {@link LockTableConnectionDetails} of a {@code @ServiceConnection} container of a DynamoDB-compatible engine:
 * one named {@code locktable} ({@code @ServiceConnection(name = "locktable")}, any image), or an image of {@code
 * amazon/dynamodb-local} or {@code localstack/localstack}. The endpoint is {@code http://<host>:<mapped port>} of the
 * container's first exposed port; the region {@code us-east-1}; the credentials any, as such engines take. Registered
 * in {@code META-INF/spring.factories}.
 */
class LockTableContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, LockTableConnectionDetails> {

    /** The connection names it serves. */
    static final List<String> NAMES = List.of("locktable", "amazon/dynamodb-local", "localstack/localstack");

    LockTableContainerConnectionDetailsFactory() {
        super(NAMES);
    }

    @Override
    protected LockTableConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
        return new ContainerDetails(source);
    }

    /** The endpoint of a container, read once it is started. */
    static final class ContainerDetails extends ContainerConnectionDetails<Container<?>>
            implements LockTableConnectionDetails {

        /** Placeholder credentials: a DynamoDB-compatible container accepts any key, so these are no secret. */
        private static final AwsCredentialsProvider PLACEHOLDER_CREDENTIALS =
                StaticCredentialsProvider.create(AwsBasicCredentials.create("locktable", "locktable"));

        ContainerDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public URI getEndpoint() {
            return endpoint(getContainer());
        }

        @Override
        public String getRegion() {
            return "us-east-1";
        }

        @Override
        public AwsCredentialsProvider getCredentialsProvider() {
            return PLACEHOLDER_CREDENTIALS;
        }
    }

    /** The endpoint of a started container: its host and the port mapped to its first exposed port. */
    static URI endpoint(Container<?> container) {
        List<Integer> ports = container.getExposedPorts();
        if (ports.isEmpty()) {
            throw new IllegalStateException("The @ServiceConnection container " + container.getDockerImageName()
                    + " exposes no port: expose the engine's, such as withExposedPorts(8000) for DynamoDB Local");
        }
        return URI.create("http://" + container.getHost() + ":" + container.getMappedPort(ports.get(0)));
    }
}
