package io.locktable.test;

import java.net.URI;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Selects the engine tests run against, once per JVM, from the system property {@code locktable.test.engine} or
 * the environment variable {@code LOCKTABLE_TEST_ENGINE}:
 *
 * <ul>
 *   <li>{@code dynalite} (default, also when empty): a local dynalite, see {@link DynaliteServer};
 *   <li>{@code endpoint}: the URL of {@code locktable.test.endpoint} / {@code LOCKTABLE_TEST_ENDPOINT}, in the
 *       region of {@code locktable.test.region} / {@code AWS_REGION} (default {@code us-east-1}), with dummy
 *       credentials on loopback and the default credentials chain elsewhere; its capabilities come from {@code
 *       locktable.test.capabilities} (a comma list of {@link EngineCapability} names);
 *   <li>{@code container}: an image started with Testcontainers where Docker runs, see {@code
 *       locktable.test.image}; it says so clearly where Docker is absent.
 * </ul>
 */
public final class DynamoDbEngines {

    private static DynamoDbEngine current;

    private DynamoDbEngines() {}

    /**
     * The engine of this JVM, started on first use.
     *
     * @return the selected engine
     * @throws IllegalStateException if the selection is unknown or the engine cannot start
     */
    public static synchronized DynamoDbEngine current() {
        if (current == null) {
            current = select(setting("locktable.test.engine", "LOCKTABLE_TEST_ENGINE"));
            System.err.println("[lock-test] DynamoDB engine: " + current);
        }
        return current;
    }

    static DynamoDbEngine select(String selection) {
        String engine = selection == null || selection.isBlank() ? "dynalite" : selection.trim();
        return switch (engine.toLowerCase(Locale.ROOT)) {
            case "dynalite" -> dynalite();
            case "endpoint" -> endpoint();
            case "container" ->
                throw new IllegalStateException("The container engine is not available yet:"
                        + " use -Dlocktable.test.engine=dynalite or -Dlocktable.test.engine=endpoint");
            default ->
                throw new IllegalStateException("Unknown DynamoDB test engine '" + engine
                        + "' in locktable.test.engine: use dynalite, endpoint or container");
        };
    }

    private static DynamoDbEngine dynalite() {
        URI endpoint = DynaliteServer.shared().endpoint();
        return new HttpEngine(
                "dynalite",
                endpoint,
                Region.US_EAST_1,
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")),
                EnumSet.noneOf(EngineCapability.class),
                "");
    }

    private static DynamoDbEngine container() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("The container engine needs org.testcontainers:testcontainers on the"
                    + " test class path: add it as a test dependency, or use -Dlocktable.test.engine=dynalite");
        }
        String port = setting("locktable.test.image.port", "LOCKTABLE_TEST_IMAGE_PORT");
        return ContainerEngines.start(
                setting("locktable.test.image", "LOCKTABLE_TEST_IMAGE"),
                port == null || port.isBlank() ? 8000 : Integer.parseInt(port.trim()),
                capabilities());
    }

    private static DynamoDbEngine endpoint() {
        String url = setting("locktable.test.endpoint", "LOCKTABLE_TEST_ENDPOINT");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("The endpoint engine needs a URL: set -Dlocktable.test.endpoint=https://..."
                    + " or LOCKTABLE_TEST_ENDPOINT");
        }
        URI endpoint = URI.create(url.trim());
        String regionName = setting("locktable.test.region", "AWS_REGION");
        Region region = Region.of(regionName == null || regionName.isBlank() ? "us-east-1" : regionName.trim());
        boolean loopback = "localhost".equals(endpoint.getHost())
                || (endpoint.getHost() != null && endpoint.getHost().startsWith("127."));
        AwsCredentialsProvider credentials = loopback
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))
                : DefaultCredentialsProvider.builder().build();
        String prefix = "locktable-test-" + UUID.randomUUID().toString().substring(0, 6) + "-";
        return new HttpEngine("endpoint", endpoint, region, credentials, capabilities(), prefix);
    }

    private static Set<EngineCapability> capabilities() {
        String listed = setting("locktable.test.capabilities", "LOCKTABLE_TEST_CAPABILITIES");
        Set<EngineCapability> capabilities = EnumSet.noneOf(EngineCapability.class);
        if (listed != null) {
            for (String name : listed.split(",")) {
                if (!name.isBlank()) {
                    capabilities.add(EngineCapability.valueOf(name.trim().toUpperCase(Locale.ROOT)));
                }
            }
        }
        return capabilities;
    }

    private static String setting(String property, String environment) {
        String value = System.getProperty(property);
        return value != null && !value.isBlank() ? value : System.getenv(environment);
    }
}
