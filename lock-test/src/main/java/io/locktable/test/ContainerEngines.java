package io.locktable.test;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The {@code container} engine: a DynamoDB-compatible image started with Testcontainers, for machines with Docker.
 * The image comes from {@code locktable.test.image} / {@code LOCKTABLE_TEST_IMAGE}, its port from {@code
 * locktable.test.image.port} (default 8000); its capabilities are probed like every engine's. Known to fit: {@code
 * amazon/dynamodb-local} (port 8000; transactions and the item on a condition failure; mind its licence, which is
 * AWS's own) and {@code localstack/localstack} (port 4566, which serves DynamoDB Local). No image is pulled unless
 * this engine is chosen.
 */
final class ContainerEngines {

    private ContainerEngines() {}

    static DynamoDbEngine start(String image, int port, Optional<Set<EngineCapability>> capabilities) {
        if (image == null || image.isBlank()) {
            throw new IllegalStateException("The container engine needs an image: set -Dlocktable.test.image=..."
                    + " (for example amazon/dynamodb-local:2.6.0) or LOCKTABLE_TEST_IMAGE");
        }
        if (!dockerAvailable()) {
            throw new IllegalStateException("The container engine needs a Docker engine, and none answers on this"
                    + " machine: start Docker, or use -Dlocktable.test.engine=dynalite (the default)");
        }
        GenericContainer<?> container =
                new GenericContainer<>(DockerImageName.parse(image.trim())).withExposedPorts(port);
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "locktable-container-stop"));
        URI endpoint = URI.create("http://" + container.getHost() + ":" + container.getMappedPort(port));
        return HttpEngine.local("container (" + image.trim().toLowerCase(Locale.ROOT) + ")", endpoint, capabilities);
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
