package io.locktable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;

/**
 * The DynamoDB table itself, for {@link DynamoDbLockStore}, whose other requests are about the lock items: checks with
 * {@code DescribeTable} that the table fits the lock protocol (step 9): string keys as named, and one writing region,
 * or several with multi-Region strong consistency; and, for lock items that carry a time-to-live attribute, that the
 * table's time to live is on it. Creates a table that is missing, when asked, and enables its time to live.
 */
final class DynamoDbTableAdmin {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /** The first version of global tables: every replica takes writes, and conditions are checked per region. */
    private static final String LEGACY_GLOBAL_TABLES = "2017.11.29";

    private final DynamoDbRequests client;
    private final String tableName;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final @Nullable String timeToLive;
    /** The time to live could not be enabled, and a WARN said so: the check of {@link #verify()} says it no more. */
    private volatile boolean timeToLiveWarned;

    DynamoDbTableAdmin(
            DynamoDbRequests client,
            String tableName,
            String partitionKey,
            @Nullable String sortKey,
            @Nullable String timeToLive) {
        this.client = client;
        this.tableName = tableName;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
        this.timeToLive = timeToLive;
    }

    /**
     * Creates the table unless it exists, and enables its time to live on the lock items' attribute if this call
     * created it. A time to live that cannot be enabled is logged: the locks work without it.
     *
     * @return true if this call created the table
     */
    boolean createIfMissing() {
        if (!create()) {
            return false;
        }
        log.info("Created the lock table '{}'", tableName);
        if (timeToLive != null) {
            try {
                client.updateTimeToLive(UpdateTimeToLiveRequest.builder()
                        .tableName(tableName)
                        .timeToLiveSpecification(s -> s.enabled(true).attributeName(timeToLive))
                        .build());
                log.info("Enabled the time to live of the lock table '{}' on '{}'", tableName, timeToLive);
            } catch (SdkException e) {
                log.warn(
                        "Could not enable the time to live of the lock table '{}' on '{}': {}. Released lock items"
                                + " stay until deleted; enable it with UpdateTimeToLive (dynamodb:UpdateTimeToLive)",
                        tableName,
                        timeToLive,
                        oneLine(e));
                timeToLiveWarned = true;
            }
        }
        return true;
    }

    /**
     * Creates the table with the lock table's keys, as strings, on demand capacity, unless it exists, and waits until
     * it is active.
     *
     * @return true if this call created it, false if it existed or another process was creating it
     */
    private boolean create() {
        try {
            client.describeTable(describeTable());
            return false;
        } catch (ResourceNotFoundException e) {
            // created below
        }
        List<KeySchemaElement> keys = new ArrayList<>(2);
        List<AttributeDefinition> attributes = new ArrayList<>(2);
        for (String key : sortKey == null ? List.of(partitionKey) : List.of(partitionKey, sortKey)) {
            keys.add(KeySchemaElement.builder()
                    .attributeName(key)
                    .keyType(key.equals(partitionKey) ? KeyType.HASH : KeyType.RANGE)
                    .build());
            attributes.add(AttributeDefinition.builder()
                    .attributeName(key)
                    .attributeType(ScalarAttributeType.S)
                    .build());
        }
        boolean created;
        try {
            client.createTable(CreateTableRequest.builder()
                    .tableName(tableName)
                    .keySchema(keys)
                    .attributeDefinitions(attributes)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .build());
            created = true;
        } catch (ResourceInUseException e) {
            created = false; // another process is creating it
        }
        client.waitUntilTableExists(tableName);
        return created;
    }

    /**
     * Checks the table.
     *
     * @return true when it is a global table with multi-Region strong consistency: safe for locks from every
     *     region, but without transactions (so without fenced writes) and without time to live
     * @throws IllegalStateException naming the table and every problem found
     */
    boolean verify() {
        TableDescription table = client.describeTable(describeTable()).table();
        List<String> problems = new ArrayList<>();
        String actualHash = keyName(table, KeyType.HASH);
        String actualRange = keyName(table, KeyType.RANGE);
        if (!partitionKey.equals(actualHash)) {
            problems.add("its partition key is '" + actualHash + "', not '" + partitionKey + "'");
        }
        if (sortKey == null && actualRange != null) {
            problems.add("it has a sort key '" + actualRange + "' that the lock table was not given");
        } else if (sortKey != null && !sortKey.equals(actualRange)) {
            problems.add(
                    actualRange == null
                            ? "it has no sort key, but the lock table was given '" + sortKey + "'"
                            : "its sort key is '" + actualRange + "', not '" + sortKey + "'");
        }
        Map<String, ScalarAttributeType> types = table.attributeDefinitions().stream()
                .collect(Collectors.toMap(AttributeDefinition::attributeName, AttributeDefinition::attributeType));
        for (String key : new String[] {actualHash, actualRange}) {
            if (key != null && types.get(key) != ScalarAttributeType.S) {
                problems.add("its key attribute '" + key + "' is of type " + types.get(key) + ", not a string (S)");
            }
        }
        boolean strong = table.multiRegionConsistency() == MultiRegionConsistency.STRONG;
        if (LEGACY_GLOBAL_TABLES.equals(table.globalTableVersion())) {
            problems.add("it is a global table of version " + LEGACY_GLOBAL_TABLES + ", whose replicas all take"
                    + " writes; a lock table must have a single writing region, or a lock can be granted twice");
        } else if (table.hasReplicas() && !table.replicas().isEmpty() && !strong) {
            problems.add(
                    "it is a global table with replicas in " + table.replicas().size() + " regions and eventual"
                            + " consistency across them; a lock table must have a single writing region, or a lock can be"
                            + " granted twice (a global table with multi-Region strong consistency is fine)");
        }
        if (strong && timeToLive != null) {
            problems.add("it is a global table with multi-Region strong consistency, which has no time to live;"
                    + " build the lock table without LockTableOptions.timeToLive");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(
                    "Table '" + tableName + "' cannot hold locks: " + String.join("; ", problems));
        }
        if (timeToLive != null && !timeToLiveWarned) {
            checkTimeToLive(timeToLive);
        }
        return strong;
    }

    /** Says in one WARN when the table's time to live is not on the attribute the lock items carry. */
    private void checkTimeToLive(String attribute) {
        TimeToLiveDescription description;
        try {
            // null when the engine does not tell
            description = client.describeTimeToLive(DescribeTimeToLiveRequest.builder()
                            .tableName(tableName)
                            .build())
                    .timeToLiveDescription();
        } catch (SdkException e) {
            log.debug("Could not read the time to live of the lock table '{}': {}", tableName, e.toString());
            return;
        }
        if (description == null) {
            return;
        }
        TimeToLiveStatus status = description.timeToLiveStatus();
        boolean onIt = attribute.equals(description.attributeName());
        if (onIt && (status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING)) {
            return;
        }
        log.warn(
                "The lock items of table '{}' carry the time-to-live attribute '{}', but the table's time to live is"
                        + " {}{}: released lock items stay until deleted. Enable it on '{}' (UpdateTimeToLive)",
                tableName,
                attribute,
                status == null ? "not reported" : status,
                description.attributeName() != null && !onIt ? " on '" + description.attributeName() + "'" : "",
                attribute);
    }

    private DescribeTableRequest describeTable() {
        return DescribeTableRequest.builder().tableName(tableName).build();
    }

    private static @Nullable String keyName(TableDescription table, KeyType type) {
        return table.keySchema().stream()
                .filter(k -> k.keyType() == type)
                .map(KeySchemaElement::attributeName)
                .findFirst()
                .orElse(null);
    }

    /**
     * An error in one line, for a log: DynamoDB's error code and message, or the type and message with line breaks
     * folded (the SDK's exception of an unreachable endpoint carries a suppressed exception per attempt).
     */
    private static String oneLine(Throwable error) {
        if (error instanceof AwsServiceException service && service.awsErrorDetails() != null) {
            String message = service.awsErrorDetails().errorMessage();
            return service.awsErrorDetails().errorCode()
                    + (message == null ? " (HTTP " + service.statusCode() + ")" : ": " + message);
        }
        return error.toString().replaceAll("\\s*\\R\\s*", " ");
    }
}
