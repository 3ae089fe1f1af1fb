package io.locktable.test;

import java.net.URI;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;

/**
 * Selects the engine tests run against, once per JVM, from the system property {@code locktable.test.engine} or
 * the environment variable {@code LOCKTABLE_TEST_ENGINE}:
 *
 * <ul>
 *   <li>{@code dynalite} (default, also when empty): a local dynalite, see {@link DynaliteServer};
 *   <li>{@code moto}: a local moto server, one request at a time, see {@link MotoServer}; where Python or moto is
 *       missing every test fails saying what to install;
 *   <li>{@code endpoint}: the URL of {@code locktable.test.endpoint} / {@code LOCKTABLE_TEST_ENDPOINT}, such as
 *       real DynamoDB, in the region of {@code locktable.test.region} / {@code AWS_REGION} or else the SDK's
 *       default region chain, with dummy credentials on loopback and the default credentials chain elsewhere;
 *       every table of the run is named {@code locktable-test-<random>-...}, and those still there at JVM exit are
 *       deleted;
 *   <li>{@code container}: an image started with Testcontainers where Docker runs, see {@code
 *       locktable.test.image}; it says so clearly where Docker is absent.
 * </ul>
 *
 * <p>Every engine's capabilities are probed on first use; {@code locktable.test.capabilities} (a comma list of
 * {@link EngineCapability} names, or {@code none}) restricts them instead, and a capability it names that the
 * engine lacks stops the run with what the engine answered.
 */
public final class DynamoDbEngines {

    /**
     * Placeholder credentials for the local engines (dynalite, moto, a container, an endpoint on loopback), which
     * accept any key: they are no secret and reach no AWS account. An endpoint elsewhere, such as DynamoDB itself,
     * gets the SDK's default credentials chain instead.
     */
    static final AwsCredentialsProvider LOCAL_CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));

    private static @Nullable DynamoDbEngine current;
    private static @Nullable RuntimeException failure;

    private DynamoDbEngines() {}

    /**
     * The engine of this JVM, started and probed on first use; if that failed, every later call fails the same way.
     *
     * @return the selected engine
     * @throws IllegalStateException if the selection is unknown or the engine cannot start
     */
    public static synchronized DynamoDbEngine current() {
        if (current == null) {
            if (failure != null) {
                // every test of the run fails the same way, not only the first
                throw new IllegalStateException(failure.getMessage(), failure);
            }
            try {
                DynamoDbEngine engine = select(setting("locktable.test.engine", "LOCKTABLE_TEST_ENGINE"));
                engine.capabilities();
                Console.println("[lock-test] DynamoDB engine: " + engine);
                current = engine;
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            }
        }
        return current;
    }

    static DynamoDbEngine select(String selection) {
        String engine = selection == null || selection.isBlank() ? "dynalite" : selection.trim();
        return switch (engine.toLowerCase(Locale.ROOT)) {
            case "dynalite" -> local("dynalite", DynaliteServer.shared());
            case "moto" -> local("moto", MotoServer.shared());
            case "endpoint" -> endpoint();
            case "container" -> container();
            default ->
                throw new IllegalStateException("Unknown DynamoDB test engine '" + engine
                        + "' in locktable.test.engine: use dynalite, moto, endpoint or container");
        };
    }

    private static DynamoDbEngine local(String name, LocalServer server) {
        return HttpEngine.local(name, server.endpoint(), declaredCapabilities());
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
                port == null || port.isBlank() ? 8000 : parsePort(port),
                declaredCapabilities());
    }

    private static DynamoDbEngine endpoint() {
        String url = setting("locktable.test.endpoint", "LOCKTABLE_TEST_ENDPOINT");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("The endpoint engine needs a URL: set -Dlocktable.test.endpoint=https://..."
                    + " or LOCKTABLE_TEST_ENDPOINT");
        }
        URI endpoint;
        try {
            endpoint = URI.create(url.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("locktable.test.endpoint '" + url + "' is not a URL: " + e.getMessage());
        }
        if (endpoint.getScheme() == null || endpoint.getHost() == null) {
            throw new IllegalStateException(
                    "locktable.test.endpoint '" + url + "' needs a scheme and a host, such as https://dynamodb"
                            + ".eu-west-1.amazonaws.com or http://127.0.0.1:8000");
        }
        boolean loopback = isLoopback(endpoint);
        HttpEngine engine = new HttpEngine(
                "endpoint",
                endpoint,
                region(loopback),
                loopback
                        ? LOCAL_CREDENTIALS
                        : DefaultCredentialsProvider.builder().build(),
                declaredCapabilities(),
                runPrefix());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteLeftovers(engine), "locktable-test-cleanup"));
        return engine;
    }

    static boolean isLoopback(URI endpoint) {
        String host = endpoint.getHost();
        return host != null && ("localhost".equals(host) || host.startsWith("127.") || "[::1]".equals(host));
    }

    /** A prefix of its own for every run, so that runs sharing an account never touch each other's tables. */
    static String runPrefix() {
        return "locktable-test-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    private static Region region(boolean loopback) {
        String named = setting("locktable.test.region", "AWS_REGION");
        if (named != null && !named.isBlank()) {
            return Region.of(named.trim());
        }
        if (loopback) {
            return Region.US_EAST_1; // any region does, and the chain could wait on instance metadata
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (SdkClientException e) {
            throw new IllegalStateException("The endpoint engine needs a region: set -Dlocktable.test.region=..., "
                    + "AWS_REGION, or a region in the AWS profile (" + e.getMessage() + ")");
        }
    }

    private static void deleteLeftovers(HttpEngine engine) {
        try {
            List<String> deleted = engine.deleteLeftoverTables();
            if (!deleted.isEmpty()) {
                Console.println("[lock-test] deleted the tables this run left behind: " + deleted);
            }
        } catch (RuntimeException e) {
            Console.println("[lock-test] could not delete this run's tables (prefix shown above): " + e);
        }
    }

    /**
     * The capabilities named in {@code locktable.test.capabilities} ({@code none} for none), or empty to probe the
     * engine for them.
     */
    static Optional<Set<EngineCapability>> declaredCapabilities() {
        return parseCapabilities(setting("locktable.test.capabilities", "LOCKTABLE_TEST_CAPABILITIES"));
    }

    static Optional<Set<EngineCapability>> parseCapabilities(String listed) {
        if (listed == null || listed.isBlank()) {
            return Optional.empty();
        }
        Set<EngineCapability> capabilities = EnumSet.noneOf(EngineCapability.class);
        for (String name : listed.split(",")) {
            String trimmed = name.trim().toUpperCase(Locale.ROOT);
            if (trimmed.isEmpty() || "NONE".equals(trimmed)) {
                continue;
            }
            try {
                capabilities.add(EngineCapability.valueOf(trimmed));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("Unknown capability '" + name.trim()
                        + "' in locktable.test.capabilities: use none or a comma list of "
                        + Arrays.toString(EngineCapability.values()));
            }
        }
        return Optional.of(capabilities);
    }

    private static int parsePort(String port) {
        try {
            return Integer.parseInt(port.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("locktable.test.image.port '" + port + "' is not a port number");
        }
    }

    static String setting(String property, String environment) {
        String value = System.getProperty(property);
        return value != null && !value.isBlank() ? value : System.getenv(environment);
    }
}
