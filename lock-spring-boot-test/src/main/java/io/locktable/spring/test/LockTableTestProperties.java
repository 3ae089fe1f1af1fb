package io.locktable.spring.test;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import java.util.Objects;
import org.springframework.test.context.DynamicPropertyRegistry;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Points the starter at one of lock-test's engines (dynalite by default, moto with {@code
 * -Dlocktable.test.engine=moto}, or any other it is set to) from a {@code @DynamicPropertySource} method.
 *
 * <pre>{@code
 * @SpringBootTest
 * class OrdersApplicationTest {
 *     @DynamicPropertySource
 *     static void lockTable(DynamicPropertyRegistry registry) {
 *         LockTableTestProperties.register(registry);
 *     }
 * }
 * }</pre>
 *
 * <p>It sets {@code locktable.dynamodb.endpoint} and {@code locktable.dynamodb.region} (used when the starter builds
 * the {@code DynamoDbClient}, so the context must not define one of its own), a table name of its own in the run's
 * namespace with {@code locktable.create-table=true}, so each test class that calls it gets a fresh table; and, for
 * an engine on loopback, which takes any credentials, the system properties {@code aws.accessKeyId} and {@code
 * aws.secretAccessKey} unless they are set already, so the SDK's default credentials chain finds some.
 */
public final class LockTableTestProperties {

    private LockTableTestProperties() {}

    /**
     * Registers the properties of the engine this JVM's tests run against ({@link DynamoDbEngines#current()}),
     * started on first use.
     *
     * @param registry the registry of the {@code @DynamicPropertySource} method
     */
    public static void register(DynamicPropertyRegistry registry) {
        register(registry, DynamoDbEngines.current());
    }

    /**
     * Registers the properties of an engine.
     *
     * @param registry the registry of the {@code @DynamicPropertySource} method
     * @param engine the engine
     */
    public static void register(DynamicPropertyRegistry registry, DynamoDbEngine engine) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(engine, "engine");
        if (engine.isLocal()) {
            setIfAbsent("aws.accessKeyId", "locktable");
            setIfAbsent("aws.secretAccessKey", "locktable");
        }
        String region;
        try (DynamoDbClient client = engine.clientBuilder().build()) {
            region = client.serviceClientConfiguration().region().id();
        }
        String table = engine.uniqueTableName("locks");
        String endpoint = engine.endpoint().toString();
        registry.add("locktable.dynamodb.endpoint", () -> endpoint);
        registry.add("locktable.dynamodb.region", () -> region);
        registry.add("locktable.table-name", () -> table);
        registry.add("locktable.create-table", () -> "true");
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}
