package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.LockTableNames;
import io.locktable.LockTableOptions;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Builds the auto-configured {@link LockTable} from the properties: has lock-core check the names and options (a
 * value it refuses fails startup naming the property) and refuses a DAX client, without a request; creates or
 * verifies the table for {@link LockTableStartupCheck}. In
 * the test mode it builds the table in memory instead, with the same options.
 */
final class LockTableFactory {

    private static final Logger log = LoggerFactory.getLogger(LockTableFactory.class);
    private static final String TIME_TO_LIVE_ATTRIBUTE_ACTION = "Set locktable.time-to-live.attribute to the"
            + " table's time-to-live attribute, such as expiresAt, or leave it unset.";
    private static final String DAX_CLIENT = "software.amazon.dax.ClusterDaxClient";
    private static final String DAX_PACKAGE = "software.amazon.dax.";

    private LockTableFactory() {}

    static LockTable create(
            LockTableClient client,
            LockTableProperties properties,
            String defaultHolder,
            LockTableListener listener,
            Consumer<LockTable.Builder> customizer) {
        refuseDax(client);
        return build(builder(client, properties), properties, defaultHolder, listener, customizer);
    }

    /**
     * Builds a lock table {@link LockTable#inMemory in memory}, for the test mode: the options, listener and
     * customizer as in production; the key attributes are the in-memory table's, and there is no table to create or
     * check, so it sends no request.
     */
    static LockTable inMemory(
            String tableName,
            LockTableProperties properties,
            String defaultHolder,
            LockTableListener listener,
            Consumer<LockTable.Builder> customizer) {
        LockTable.Builder builder = asProperty(
                "locktable.table-name",
                "Set locktable.table-name to the name of the DynamoDB table that holds the locks.",
                () -> LockTable.inMemory(tableName));
        return build(builder, properties, defaultHolder, listener, customizer);
    }

    private static LockTable build(
            LockTable.Builder builder,
            LockTableProperties properties,
            String defaultHolder,
            LockTableListener listener,
            Consumer<LockTable.Builder> customizer) {
        LockTableOptions options = options(properties, defaultHolder);
        asProperty("locktable.time-to-live.attribute", TIME_TO_LIVE_ATTRIBUTE_ACTION, () -> builder.options(options));
        builder.listener(listener);
        customizer.accept(builder);
        return builder.build();
    }

    static void refuseDax(LockTableClient client) {
        if (isDax(client.client())) {
            throw new LockTableConfigurationException(
                    "The " + client.typeName() + " for the locks is a DAX client ("
                            + client.targetClass().getName()
                            + "). DAX serves reads from a cache that is not strongly consistent, and the lock protocol"
                            + " depends on strongly consistent reads: two instances could hold one lock.",
                    "Define a plain DynamoDbClient bean (DynamoDbClient.create()) and mark it with"
                            + " @LockTableDynamoDbClient: the locks use it, and with @Bean(defaultCandidate = false)"
                            + " the rest of the application keeps getting the DAX client. Or define a LockTable bean"
                            + " of your own built on a plain client.");
        }
    }

    /**
     * Tells a DAX client by its type: an instance of the DAX SDK's {@value #DAX_CLIENT} (looked up only when that
     * class is on the class path), or of any class of the DAX SDK's package. A Spring AOP proxy is looked through.
     */
    static boolean isDax(Object client) {
        Class<?> type = AopUtils.getTargetClass(client);
        if (type.getName().startsWith(DAX_PACKAGE)) {
            return true;
        }
        ClassLoader loader = type.getClassLoader();
        if (!ClassUtils.isPresent(DAX_CLIENT, loader)) {
            return false;
        }
        return ClassUtils.resolveClassName(DAX_CLIENT, loader).isAssignableFrom(type);
    }

    /**
     * A builder for the table and keys of the properties. lock-core keeps the rules for the names; a name it refuses
     * fails startup naming the property, with lock-core's reason.
     */
    private static LockTable.Builder builder(LockTableClient client, LockTableProperties properties) {
        String table = properties.getTableName();
        if (table == null || table.isBlank()) {
            throw new LockTableConfigurationException(
                    "The lock table has no name: locktable.table-name is not set.",
                    "Set locktable.table-name to the DynamoDB table that holds the locks (its key attributes are"
                            + " strings, named by locktable.partition-key and locktable.sort-key), or define a"
                            + " LockTable bean of your own.");
        }
        String tableName = asProperty(
                "locktable.table-name",
                "Set locktable.table-name to the name of the DynamoDB table that holds the locks.",
                () -> LockTableNames.checkTableName(table.trim()));
        String partitionKey = asProperty(
                "locktable.partition-key",
                "Set locktable.partition-key to the name of the table's partition key attribute, or leave it unset"
                        + " for pk. A table whose key is named like an attribute of the lock items cannot hold"
                        + " locks.",
                () -> LockTableNames.checkKeyAttribute(properties.getPartitionKey()));
        LockTable.Builder builder = client.builder(tableName, partitionKey);
        String sortKey = properties.getSortKey();
        if (sortKey != null && !sortKey.isEmpty()) {
            asProperty(
                    "locktable.sort-key",
                    "Set locktable.sort-key to the name of the table's sort key attribute, or leave it unset for a"
                            + " table without one. A table whose key is named like an attribute of the lock items"
                            + " cannot hold locks.",
                    () -> builder.sortKey(LockTableNames.checkKeyAttribute(sortKey)));
        }
        return builder;
    }

    private static LockTableOptions options(LockTableProperties properties, String defaultHolder) {
        LockTableOptions.Builder options = LockTableOptions.builder();
        String holder = properties.getHolder() == null ? defaultHolder : properties.getHolder();
        asProperty(
                "locktable.holder",
                "Set locktable.holder to a readable name of this instance, such as orders@host-1, or leave it unset"
                        + " for <spring.application.name>@<host>/<pid>.",
                () -> options.holder(holder));
        String attribute = properties.getTimeToLive().getAttribute();
        if (attribute != null && !attribute.isEmpty()) {
            Duration retention = properties.getTimeToLive().getRetention();
            boolean retentionWrong =
                    retention == null || retention.compareTo(LockTableOptions.MIN_TIME_TO_LIVE_RETENTION) < 0;
            asProperty(
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

    /**
     * Applies a value to lock-core, which keeps the rule; a value it refuses fails startup naming the property,
     * with lock-core's reason.
     */
    private static <T> T asProperty(String property, String action, Supplier<T> apply) {
        try {
            return apply.get();
        } catch (IllegalArgumentException e) {
            throw new LockTableConfigurationException(property + " is not valid: " + e.getMessage() + ".", action, e);
        }
    }

    /**
     * The startup check of the table, once every bean is created ({@link LockTableStartupCheck}): creates it with
     * {@code locktable.create-table=true}, then verifies it; a missing or unfit table fails startup naming the
     * property, an unreachable or throttling DynamoDB is one WARN.
     */
    static void prepare(LockTableClient client, LockTable locks, LockTableProperties properties) {
        try {
            if (properties.isCreateTable()) {
                locks.createTableIfMissing(); // logs the creation
            }
            locks.verify(); // with locktable.time-to-live.attribute, one WARN if the table's time to live is off
        } catch (ResourceNotFoundException e) {
            throw new LockTableConfigurationException(
                    "The lock table '" + locks.tableName() + "' (locktable.table-name) does not exist"
                            + client.endpoint() + ".",
                    "Create it with a string partition key '" + locks.partitionKey() + "'"
                            + locks.sortKey()
                                    .map(k -> " and a string sort key '" + k + "'")
                                    .orElse("")
                            + ", or set locktable.table-name to an existing table. For development,"
                            + " locktable.create-table=true creates it at startup.",
                    e);
        } catch (LockTableConfigurationException e) {
            throw e;
        } catch (IllegalStateException e) {
            throw new LockTableConfigurationException(
                    e.getMessage() + ".",
                    "Set locktable.partition-key and locktable.sort-key to the table's key attributes (strings), or"
                            + " set locktable.table-name to a table that fits; a lock table must have a single"
                            + " writing region.",
                    e);
        } catch (SdkClientException e) {
            // one line with the cause and what to check: the SDK's exception of an unreachable endpoint carries a
            // suppressed exception per attempt, hundreds of lines of stack; those are at DEBUG
            log.warn(
                    "Could not check the lock table '{}' at startup{}: {}. Check that DynamoDB answers there"
                            + " (locktable.dynamodb.endpoint and locktable.dynamodb.region when the starter builds"
                            + " the client) and that the client has credentials; the application starts, and locks"
                            + " and leaderships retry until it answers",
                    locks.tableName(),
                    client.endpoint(),
                    oneLine(e));
            log.debug("Could not check the lock table '{}' at startup", locks.tableName(), e);
        } catch (DynamoDbException e) {
            if (e.isThrottlingException() || e.statusCode() >= 500) {
                log.warn(
                        "Could not check the lock table '{}' at startup: {}. DynamoDB throttled or failed the"
                                + " request; the application starts, and locks and leaderships retry",
                        locks.tableName(),
                        oneLine(e));
                log.debug("Could not check the lock table '{}' at startup", locks.tableName(), e);
                return;
            }
            throw new LockTableConfigurationException(
                    "Checking the lock table '" + locks.tableName() + "' (locktable.table-name) failed: "
                            + e.getMessage(),
                    "Check the credentials and permissions of the DynamoDB client: the locks need"
                            + " dynamodb:DescribeTable, GetItem and UpdateItem on the table.",
                    e);
        }
    }

    /** An exception as one line: its type and message, line breaks folded. */
    private static String oneLine(Throwable error) {
        return error.toString().replaceAll("\\s*\\R\\s*", " ");
    }
}
