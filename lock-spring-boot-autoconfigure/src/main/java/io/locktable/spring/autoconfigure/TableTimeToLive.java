package io.locktable.spring.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * The table's side of {@code locktable.time-to-live.attribute}: LockTable writes the attribute on every lock item,
 * but DynamoDB deletes expired items only where the table's time to live is enabled on that attribute. On a table
 * the starter created it enables it; on any other it checks, and says in one WARN when released items will never
 * expire. Neither stops the application: the locks work either way.
 */
final class TableTimeToLive {

    private static final Logger log = LoggerFactory.getLogger(TableTimeToLive.class);

    private TableTimeToLive() {}

    /** Enables the time to live on a table the starter has just created. */
    static void enable(DynamoDbClient client, String table, String attribute) {
        try {
            client.updateTimeToLive(r -> r.tableName(table)
                    .timeToLiveSpecification(s -> s.enabled(true).attributeName(attribute)));
            log.info(
                    "Enabled the time to live of the lock table '{}' on '{}' (locktable.time-to-live.attribute)",
                    table,
                    attribute);
        } catch (SdkException e) {
            log.warn(
                    "Could not enable the time to live of the lock table '{}' on '{}' (locktable.time-to-live"
                            + ".attribute): {}. Released lock items stay until deleted; enable it with"
                            + " UpdateTimeToLive (dynamodb:UpdateTimeToLive)",
                    table,
                    attribute,
                    answer(e));
        }
    }

    /** Says in one WARN if the table's time to live is not on the attribute the lock items carry. */
    static void check(DynamoDbClient client, String table, String attribute) {
        TimeToLiveDescription description;
        try {
            description = client.describeTimeToLive(r -> r.tableName(table)).timeToLiveDescription();
        } catch (SdkException e) {
            log.debug("Could not read the time to live of the lock table '{}': {}", table, answer(e));
            return;
        }
        TimeToLiveStatus status = description == null ? null : description.timeToLiveStatus();
        boolean onIt = attribute.equals(description == null ? null : description.attributeName());
        if (onIt && (status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING)) {
            return;
        }
        log.warn(
                "locktable.time-to-live.attribute is '{}', but the time to live of the lock table '{}' is {}{}:"
                        + " released lock items stay until deleted. Enable it on '{}' (UpdateTimeToLive)",
                attribute,
                table,
                status == null ? "not reported" : status,
                description != null && description.attributeName() != null && !onIt
                        ? " on '" + description.attributeName() + "'"
                        : "",
                attribute);
    }

    private static String answer(SdkException e) {
        if (e instanceof DynamoDbException dynamo && dynamo.awsErrorDetails() != null) {
            return dynamo.awsErrorDetails().errorCode() + ": "
                    + dynamo.awsErrorDetails().errorMessage();
        }
        return e.toString();
    }
}
