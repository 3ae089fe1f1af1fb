package io.locktable.test;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Finds out what an engine can do by asking it, on a table of its own: a transaction whose check passes and one
 * whose check fails (the second must be cancelled with a {@code ConditionalCheckFailed} reason, as LockTable's
 * fenced writes rely on), a failed conditional write with {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}, and
 * {@code UpdateTimeToLive}. The outcome names, for each missing capability, what the engine answered.
 */
final class EngineProbe {

    private static final String KEY = "pk";
    private static final String SORT = "sk";

    private EngineProbe() {}

    /** What the probe found: the capabilities present, and why each absent one is missing. */
    record Findings(Set<EngineCapability> present, Map<EngineCapability, String> missing) {

        Findings {
            present = Set.copyOf(present);
            missing = Map.copyOf(missing);
        }
    }

    static Findings probe(DynamoDbEngine engine) {
        TestTable table = engine.createTable("capability-probe", KEY, SORT);
        try {
            Map<EngineCapability, String> missing = new EnumMap<>(EngineCapability.class);
            DynamoDbClient client = engine.client();
            transactions(client, table.name()).ifPresent(why -> missing.put(EngineCapability.TRANSACTIONS, why));
            itemOnConditionFailure(client, table.name())
                    .ifPresent(why -> missing.put(EngineCapability.RETURNS_ITEM_ON_CONDITION_FAILURE, why));
            timeToLive(client, table.name()).ifPresent(why -> missing.put(EngineCapability.TIME_TO_LIVE, why));
            Set<EngineCapability> present = EnumSet.allOf(EngineCapability.class);
            present.removeAll(missing.keySet());
            return new Findings(present, missing);
        } finally {
            engine.deleteTable(table.name());
        }
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of(KEY, AttributeValue.fromS(id), SORT, AttributeValue.fromS(id));
    }

    /** A check that the item {@code id} is absent, for a {@code TransactWriteItems}. */
    private static TransactWriteItem absentCheck(String table, String id) {
        return TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName(table).key(key(id)).conditionExpression("attribute_not_exists(pk)"))
                .build();
    }

    /** A put of the item {@code id}, for a {@code TransactWriteItems}. */
    private static TransactWriteItem put(String table, String id) {
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table).item(key(id)))
                .build();
    }

    private static Optional<String> transactions(DynamoDbClient client, String table) {
        try {
            client.transactWriteItems(r -> r.transactItems(
                    absentCheck(table, "absent"), put(table, "written"))); // built items: no generic varargs array
        } catch (DynamoDbException e) {
            return Optional.of("TransactWriteItems answered " + answer(e));
        }
        try {
            client.transactWriteItems(r -> r.transactItems(absentCheck(table, "written"), put(table, "never")));
            return Optional.of("a TransactWriteItems whose check failed was applied");
        } catch (TransactionCanceledException e) {
            boolean reasonGiven = e.hasCancellationReasons()
                    && !e.cancellationReasons().isEmpty()
                    && "ConditionalCheckFailed"
                            .equals(e.cancellationReasons().get(0).code());
            return reasonGiven
                    ? Optional.empty()
                    : Optional.of("a cancelled TransactWriteItems gave no ConditionalCheckFailed reason");
        } catch (DynamoDbException e) {
            return Optional.of("a TransactWriteItems whose check failed answered " + answer(e));
        }
    }

    private static Optional<String> itemOnConditionFailure(DynamoDbClient client, String table) {
        Map<String, AttributeValue> item = key("existing");
        client.putItem(r -> r.tableName(table).item(item));
        try {
            client.putItem(r -> r.tableName(table)
                    .item(item)
                    .conditionExpression("attribute_not_exists(pk)")
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return Optional.of("a PutItem whose condition failed was applied");
        } catch (ConditionalCheckFailedException e) {
            return e.hasItem() && !e.item().isEmpty()
                    ? Optional.empty()
                    : Optional.of("a ConditionalCheckFailedException came without the item");
        }
    }

    private static Optional<String> timeToLive(DynamoDbClient client, String table) {
        try {
            client.updateTimeToLive(r -> r.tableName(table)
                    .timeToLiveSpecification(s -> s.enabled(true).attributeName("expiresAt")));
            return Optional.empty();
        } catch (DynamoDbException e) {
            return Optional.of("UpdateTimeToLive answered " + answer(e));
        }
    }

    private static String answer(DynamoDbException e) {
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        return (code == null ? e.getClass().getSimpleName() : code) + " (HTTP " + e.statusCode() + ")";
    }
}
