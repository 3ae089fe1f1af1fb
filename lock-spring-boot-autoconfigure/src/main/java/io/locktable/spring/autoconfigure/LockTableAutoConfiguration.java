package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.LockTableNames;
import io.locktable.LockTableOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.core.SdkClient;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * The {@link LockTable} of {@code locktable.*}, closed (its leases released) with the context. Its client is, in
 * order: the {@code DynamoDbClient} marked {@link LockTableDynamoDbClient @LockTableDynamoDbClient}, the {@code
 * DynamoDbAsyncClient} so marked, the single (or primary) {@code DynamoDbClient}, and in a context without one the
 * single (or primary) {@code DynamoDbAsyncClient}; otherwise it backs off. A DAX client is refused. Creating it sends
 * nothing: once every bean exists, before anything starts, the table is created with {@code locktable.create-table}
 * and {@linkplain LockTable#verify() verified}. Every {@link LockTableListener} bean hears it, and every {@link
 * LockTableBuilderCustomizer} adjusts it. Backs off when the context has a {@code LockTable}.
 *
 * <p>In the test mode {@code locktable.test.in-memory}, with {@code lock-spring-boot-test} on the class path, the
 * table is {@link LockTable#inMemory in memory}, with the same options, listeners and customizers.
 */
@AutoConfiguration(after = LockTableDynamoDbClientAutoConfiguration.class)
@ConditionalOnClass(LockTable.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LockTableAutoConfiguration.class);
    private static final String TABLE_NAME_ACTION =
            "Set locktable.table-name to the name of the DynamoDB table that holds the locks.";
    private static final String TIME_TO_LIVE_ATTRIBUTE_ACTION = "Set locktable.time-to-live.attribute to the"
            + " table's time-to-live attribute, such as expiresAt, or leave it unset.";
    private static final String KEY_ACTION =
            " A table whose key is named like an attribute of the lock items cannot hold locks.";

    LockTableAutoConfiguration() {}

    /** Conditions on the class, so that the startup check exists exactly with this table. */
    @Configuration(proxyBeanMethods = false)
    @Conditional({InMemoryTestMode.Off.class, ClientCondition.class})
    @ConditionalOnMissingBean(LockTable.class)
    static class DynamoDbLockTableConfiguration {

        @Bean
        LockTableClient lockTableClient(
                @LockTableDynamoDbClient ObjectProvider<DynamoDbClient> marked,
                @LockTableDynamoDbClient ObjectProvider<DynamoDbAsyncClient> markedAsync,
                ObjectProvider<DynamoDbClient> clients,
                ObjectProvider<DynamoDbAsyncClient> asyncClients) {
            SdkClient client = marked.getIfAvailable();
            if (client == null) {
                client = markedAsync.getIfAvailable();
            }
            if (client == null) {
                client = clients.getIfAvailable();
            }
            return new LockTableClient(client != null ? client : asyncClients.getObject());
        }

        @Bean(destroyMethod = "close")
        LockTable lockTable(
                LockTableClient client,
                LockTableProperties properties,
                Environment environment,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            String testMode = InMemoryTestMode.asked(environment);
            if (testMode != null) {
                log.warn(
                        "{}=true is ignored: it works only in tests, with io.locktable:lock-spring-boot-test on the"
                                + " class path; the locks are in DynamoDB as usual",
                        testMode);
            }
            return build(client, properties, environment, listeners, customizers);
        }

        /** Runs once every bean exists, before any lifecycle bean starts (never lazy: Boot exempts this type). */
        @Bean
        SmartInitializingSingleton lockTableStartupCheck(
                LockTableClient client, LockTable lockTable, LockTableProperties properties) {
            return () -> check(client, lockTable, properties.isCreateTable());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(InMemoryTestMode.class)
    static class InMemoryLockTableConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        LockTable lockTable(
                LockTableProperties properties,
                Environment environment,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            LockTable locks = build(null, properties, environment, listeners, customizers);
            log.info(
                    "{}=true: the locks are in memory, in the table '{}' of this JVM (a test mode)",
                    InMemoryTestMode.asked(environment),
                    locks.tableName());
            return locks;
        }
    }

    /** A builder over the client, for the table and keys of the properties. */
    private static LockTable.Builder builder(LockTableClient client, LockTableProperties properties) {
        client.refuseDax();
        String table = properties.getTableName();
        if (table == null || table.isBlank()) {
            throw new LockTableConfigurationException(
                    "The lock table has no name: locktable.table-name is not set.",
                    "Set locktable.table-name to the DynamoDB table that holds the locks (its key attributes are"
                            + " strings, named by locktable.partition-key and locktable.sort-key), or define a"
                            + " LockTable bean of your own.");
        }
        String tableName =
                property("locktable.table-name", TABLE_NAME_ACTION, () -> LockTableNames.checkTableName(table.trim()));
        String partitionKey = property(
                "locktable.partition-key",
                "Set locktable.partition-key to the name of the table's partition key attribute, or leave it unset"
                        + " for pk." + KEY_ACTION,
                () -> LockTableNames.checkKeyAttribute(properties.getPartitionKey()));
        LockTable.Builder builder = client.builder(tableName, partitionKey);
        String sortKey = properties.getSortKey();
        if (sortKey != null && !sortKey.isEmpty()) {
            property(
                    "locktable.sort-key",
                    "Set locktable.sort-key to the name of the table's sort key attribute, or leave it unset for a"
                            + " table without one." + KEY_ACTION,
                    () -> builder.sortKey(LockTableNames.checkKeyAttribute(sortKey)));
        }
        return builder;
    }

    /** The lock table over the client, or without one in memory (the test mode); sends nothing. */
    private static LockTable build(
            @Nullable LockTableClient client,
            LockTableProperties properties,
            Environment environment,
            ObjectProvider<LockTableListener> listeners,
            ObjectProvider<LockTableBuilderCustomizer> customizers) {
        LockTable.Builder builder = client != null
                ? builder(client, properties)
                : property(
                        "locktable.table-name",
                        TABLE_NAME_ACTION,
                        () -> LockTable.inMemory(InMemoryTestMode.tableName(properties.getTableName())));
        LockTableOptions options = options(properties, environment);
        property("locktable.time-to-live.attribute", TIME_TO_LIVE_ATTRIBUTE_ACTION, () -> builder.options(options));
        // the beans are looked up at each event, so that a listener may itself depend on the lock table
        builder.listener(LockTableListener.forwardingTo(() -> {
            try {
                return listeners.orderedStream().toList();
            } catch (BeansException e) {
                return List.of(); // the context is closing: the table releases its leases after the listeners went
            }
        }));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    private static LockTableOptions options(LockTableProperties properties, Environment environment) {
        LockTableOptions.Builder options = LockTableOptions.builder();
        String holder = properties.getHolder() == null ? defaultHolder(environment) : properties.getHolder();
        property(
                "locktable.holder",
                "Set locktable.holder to a readable name of this instance, such as orders@host-1, or leave it unset"
                        + " for <spring.application.name>@<host>/<pid>.",
                () -> options.holder(holder));
        String attribute = properties.getTimeToLive().getAttribute();
        if (attribute != null && !attribute.isEmpty()) {
            Duration retention = properties.getTimeToLive().getRetention();
            boolean retentionWrong =
                    retention == null || retention.compareTo(LockTableOptions.MIN_TIME_TO_LIVE_RETENTION) < 0;
            property(
                    retentionWrong ? "locktable.time-to-live.retention" : "locktable.time-to-live.attribute",
                    retentionWrong
                            ? "Set locktable.time-to-live.retention to how long an item outlives its last lease, at"
                                    + " least " + LockTableOptions.MIN_TIME_TO_LIVE_RETENTION.toHours() + "h and at"
                                    + " least the longest lease, such as 7d."
                            : TIME_TO_LIVE_ATTRIBUTE_ACTION,
                    () -> options.timeToLive(attribute, retention == null ? Duration.ZERO : retention));
        }
        return options.build();
    }

    /** {@code <spring.application.name>@<host>/<pid>}, cut to the length lock-core allows. */
    private static String defaultHolder(Environment environment) {
        String application =
                environment.getProperty("spring.application.name", "").trim();
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "unknown-host";
            }
        }
        String holder = (application.isEmpty() ? "" : application + "@") + host.trim() + "/"
                + ProcessHandle.current().pid();
        return holder.substring(0, Math.min(holder.length(), LockTableOptions.MAX_HOLDER_LENGTH));
    }

    /** Applies a value to lock-core; a value it refuses fails startup naming the property. */
    private static <T> T property(String property, String action, Supplier<T> apply) {
        try {
            return apply.get();
        } catch (IllegalArgumentException e) {
            throw new LockTableConfigurationException(property + " is not valid: " + e.getMessage() + ".", action, e);
        }
    }

    /**
     * Creates the table with {@code locktable.create-table=true}, then verifies it. A missing or unfit table fails
     * startup naming the property; an unreachable or throttling DynamoDB is one WARN line (the SDK's stack has a
     * suppressed exception per attempt, hundreds of lines: at DEBUG), and the locks retry.
     */
    private static void check(LockTableClient client, LockTable locks, boolean createTable) {
        String table = locks.tableName();
        try {
            if (createTable) {
                locks.createTableIfMissing();
            }
            locks.verify(); // with a time-to-live attribute, one WARN if the table's time to live is off
        } catch (ResourceNotFoundException e) {
            throw new LockTableConfigurationException(
                    "The lock table '" + table + "' (locktable.table-name) does not exist" + client.endpoint() + ".",
                    "Create it with a string partition key '" + locks.partitionKey() + "'"
                            + locks.sortKey()
                                    .map(k -> " and a string sort key '" + k + "'")
                                    .orElse("")
                            + ", or set locktable.table-name to an existing table. For development,"
                            + " locktable.create-table=true creates it at startup.",
                    e);
        } catch (IllegalStateException e) {
            // lock-core's problem for a key that is no string: no property changes a table's key types
            boolean keyType = String.valueOf(e.getMessage()).contains(", not a string (S)");
            throw new LockTableConfigurationException(
                    e.getMessage() + ".",
                    keyType
                            ? "Give the locks another table: a table's key types cannot change, and a lock's key"
                                    + " (LOCK#<name>) is a string, so no locktable.* property makes this table fit."
                                    + " Set locktable.table-name to a table whose partition key (and sort key, if"
                                    + " any) is a string, such as a new one of the locks' own: with"
                                    + " locktable.create-table=true it is created at startup, with a string"
                                    + " partition key '" + locks.partitionKey() + "'"
                                    + locks.sortKey()
                                            .map(k -> " and a string sort key '" + k + "'")
                                            .orElse("")
                                    + ". Keep your table for your own items."
                            : "Set locktable.partition-key and locktable.sort-key to the table's key attributes"
                                    + " (strings), or set locktable.table-name to a table that fits; a lock table"
                                    + " must have a single writing region.",
                    e);
        } catch (SdkClientException e) {
            log.warn(
                    "Could not check the lock table '{}' at startup{}: {}. Check that DynamoDB answers there"
                            + " (locktable.dynamodb.endpoint and locktable.dynamodb.region when the starter builds"
                            + " the client) and that the client has credentials; the application starts, and locks"
                            + " and leaderships retry until it answers",
                    table,
                    client.endpoint(),
                    oneLine(e));
            log.debug("Could not check the lock table '{}' at startup", table, e);
        } catch (DynamoDbException e) {
            String unknownRegion = client.unknownRegionOfLocalEngine();
            if (unknownRegion != null && e.statusCode() >= 500) {
                throw new LockTableConfigurationException(
                        "The DynamoDB engine" + client.endpoint() + " answered HTTP " + e.statusCode() + " to"
                                + " DescribeTable for the lock table '" + table + "'. '" + unknownRegion + "' is no"
                                + " AWS region, and a local engine such as moto answers every request in a region it"
                                + " does not know that way, so the locks would never work.",
                        "Set locktable.dynamodb.region to an AWS region name, such as us-east-1, the same on every"
                                + " instance (a local engine keeps the tables of each region apart); with a"
                                + " DynamoDbClient bean of your own, build it with such a region.",
                        e);
            }
            if (!e.isThrottlingException() && e.statusCode() < 500) {
                throw new LockTableConfigurationException(
                        "Checking the lock table '" + table + "' (locktable.table-name) failed: " + e.getMessage(),
                        "Check the credentials and permissions of the DynamoDB client: the locks need"
                                + " dynamodb:DescribeTable, GetItem and UpdateItem on the table.",
                        e);
            }
            log.warn(
                    "Could not check the lock table '{}' at startup: {}. DynamoDB throttled or failed the"
                            + " request; the application starts, and locks and leaderships retry",
                    table,
                    oneLine(e));
            log.debug("Could not check the lock table '{}' at startup", table, e);
        }
    }

    private static String oneLine(Throwable error) {
        return error.toString().replaceAll("\\s*\\R\\s*", " ");
    }

    /** A client for the locks: a marked one, the single {@code DynamoDbClient}, or else the single async one. */
    static final class ClientCondition extends AnyNestedCondition {

        ClientCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(annotation = LockTableDynamoDbClient.class)
        static final class Marked {}

        @ConditionalOnSingleCandidate(DynamoDbClient.class)
        static final class SingleCandidate {}

        @ConditionalOnSingleCandidate(DynamoDbAsyncClient.class)
        @ConditionalOnMissingBean(DynamoDbClient.class)
        static final class SingleAsyncCandidate {}
    }
}
