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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Builds the auto-configured lock table from the properties, sending nothing, and checks its table at startup.
 * lock-core keeps the rules; a value it refuses fails startup naming the property, with lock-core's reason.
 */
final class LockTableFactory {

    private static final Logger log = LoggerFactory.getLogger(LockTableFactory.class);
    private static final String TABLE_NAME_ACTION =
            "Set locktable.table-name to the name of the DynamoDB table that holds the locks.";
    private static final String TIME_TO_LIVE_ATTRIBUTE_ACTION = "Set locktable.time-to-live.attribute to the"
            + " table's time-to-live attribute, such as expiresAt, or leave it unset.";
    private static final String KEY_ACTION =
            " A table whose key is named like an attribute of the lock items cannot" + " hold locks.";

    private LockTableFactory() {}

    /** A builder over the client, for the table and keys of the properties. */
    static LockTable.Builder dynamoDb(LockTableClient client, LockTableProperties properties) {
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

    /** A builder of a table in memory, for the test mode: no table to create or check, no request. */
    static LockTable.Builder inMemory(String tableName) {
        return property("locktable.table-name", TABLE_NAME_ACTION, () -> LockTable.inMemory(tableName));
    }

    /** Builds the table with the options of the properties, then the listener beans and the customizers. */
    static LockTable build(
            LockTable.Builder builder,
            LockTableProperties properties,
            Environment environment,
            ObjectProvider<LockTableListener> listeners,
            ObjectProvider<LockTableBuilderCustomizer> customizers) {
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
    static void check(LockTableClient client, LockTable locks, boolean createTable) {
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
            throw new LockTableConfigurationException(
                    e.getMessage() + ".",
                    "Set locktable.partition-key and locktable.sort-key to the table's key attributes (strings), or"
                            + " set locktable.table-name to a table that fits; a lock table must have a single"
                            + " writing region.",
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
}
