package io.locktable.spring.test;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.EngineCapability;
import io.locktable.test.MotoServer;
import java.net.URI;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
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
 *
 * <p>It also sets {@code locktable.test.unsupported-requests=fail}: a request of the starter's client that the engine
 * refuses as unsupported ({@code UnknownOperationException}) fails the test, after its method or after its class,
 * with what was refused, where, and the fix, instead of an ERROR in the log of a green test.
 *
 * <p>A test whose code needs more than the basics of DynamoDB says so, and never runs on an engine that lacks it. A
 * fenced write, {@code lease.heldCheck()} in a {@code TransactWriteItems}, needs transactions, which dynalite, the
 * default engine, has not:
 *
 * <pre>{@code
 * @DynamicPropertySource
 * static void lockTable(DynamicPropertyRegistry registry) {
 *     LockTableTestProperties.register(registry, EngineCapability.TRANSACTIONS); // moto where dynalite lacks them
 * }
 * }</pre>
 *
 * <p>With the default engine that means lock-test's moto ({@code pip install 'moto[server]'}), which has every
 * {@link EngineCapability}; where moto is not installed, or the engine selected with {@code locktable.test.engine}
 * lacks what is asked, the test fails with the reason and what to install or select.
 */
public final class LockTableTestProperties {

    /** What lock-test's moto has (the capabilities dynalite lacks): see {@link MotoServer}. */
    static final Set<EngineCapability> MOTO = EnumSet.allOf(EngineCapability.class);

    /** The region of lock-test's local engines. */
    static final String LOCAL_REGION = "us-east-1";

    /** The property that selects lock-test's engine (see {@link DynamoDbEngines}). */
    static final String SELECTION = "locktable.test.engine";

    /** The environment variable that selects it when the property is not set. */
    static final String SELECTION_VARIABLE = "LOCKTABLE_TEST_ENGINE";

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
        register(registry, Target.of(Objects.requireNonNull(engine, "engine")));
    }

    /**
     * Registers the properties of an engine that has what the test needs: the engine this JVM's tests run against
     * if it has it; else, when no engine was selected ({@code locktable.test.engine} unset, so dynalite), lock-test's
     * moto, started on first use.
     *
     * @param registry the registry of the {@code @DynamicPropertySource} method
     * @param needed what the test's code needs, such as {@link EngineCapability#TRANSACTIONS} for a fenced write
     * @param more more of it
     * @throws IllegalStateException when no such engine can run: the engine selected lacks it, or moto is not
     *     installed; the message says what the test needs, why it cannot have it and what to install or select
     */
    public static void register(DynamicPropertyRegistry registry, EngineCapability needed, EngineCapability... more) {
        Objects.requireNonNull(registry, "registry");
        Set<EngineCapability> all = EnumSet.of(Objects.requireNonNull(needed, "needed"), more);
        register(
                registry,
                choose(
                        selection(),
                        all,
                        DynamoDbEngines::current,
                        () -> MotoServer.shared().endpoint()));
    }

    /** The engine selected for the run, read as lock-test reads it: the property, else the variable; null for none. */
    static @Nullable String selection() {
        String property = System.getProperty(SELECTION);
        return property != null && !property.isBlank() ? property : System.getenv(SELECTION_VARIABLE);
    }

    /**
     * The engine for a test that needs some capabilities. An engine selected by name is used if it has them and
     * refused if not: the run asked for it. With none selected (the default, dynalite), moto is used without
     * starting dynalite, if moto has them and starts.
     */
    static Target choose(
            @Nullable String selection,
            Set<EngineCapability> needed,
            Supplier<DynamoDbEngine> current,
            Supplier<URI> moto) {
        String what = needed
                + (needed.contains(EngineCapability.TRANSACTIONS)
                        ? " (a fenced write, lease.heldCheck() in TransactWriteItems, needs TRANSACTIONS)"
                        : "");
        if (selection != null && !selection.isBlank()) {
            DynamoDbEngine engine = current.get();
            Set<EngineCapability> missing = EnumSet.copyOf(needed);
            missing.removeAll(engine.capabilities());
            if (missing.isEmpty()) {
                return Target.of(engine);
            }
            throw new IllegalStateException("This test needs " + what + ", and the engine " + engine.name()
                    + " selected with " + SELECTION + "=" + selection.trim() + " lacks " + missing + ": run it with -D"
                    + SELECTION + "=moto (pip install 'moto[server]'), or leave " + SELECTION + " unset and lock-test's"
                    + " moto is used for it");
        }
        if (!MOTO.containsAll(needed)) {
            throw new IllegalStateException("This test needs " + what + ", which no local engine of lock-test has: set "
                    + SELECTION + " to an engine that has it, such as endpoint or container");
        }
        URI endpoint;
        try {
            endpoint = moto.get();
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "This test needs " + what + ", which dynalite, the default engine, lacks; lock-test's moto has it"
                            + " but could not start: " + e.getMessage(),
                    e);
        }
        return new Target(
                endpoint, LOCAL_REGION, "locks-" + UUID.randomUUID().toString().substring(0, 8), true);
    }

    /**
     * Where the starter's client goes and the table it creates there.
     *
     * @param endpoint the engine's endpoint
     * @param region the region of its tables
     * @param tableName a table name no test used yet
     * @param local whether the engine answers on loopback, where any credentials do
     */
    record Target(URI endpoint, String region, String tableName, boolean local) {

        static Target of(DynamoDbEngine engine) {
            String region;
            try (DynamoDbClient client = engine.clientBuilder().build()) {
                region = client.serviceClientConfiguration().region().id();
            }
            return new Target(engine.endpoint(), region, engine.uniqueTableName("locks"), engine.isLocal());
        }
    }

    private static void register(DynamicPropertyRegistry registry, Target target) {
        if (target.local()) {
            setIfAbsent("aws.accessKeyId", "locktable");
            setIfAbsent("aws.secretAccessKey", "locktable");
        }
        String endpoint = target.endpoint().toString();
        registry.add("locktable.dynamodb.endpoint", () -> endpoint);
        registry.add("locktable.dynamodb.region", target::region);
        registry.add("locktable.table-name", target::tableName);
        registry.add("locktable.create-table", () -> "true");
        // a request the engine refuses as unsupported fails the test, rather than an ERROR in a green test's log
        registry.add(RefusedRequestsAutoConfiguration.PROPERTY, () -> "fail");
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}
