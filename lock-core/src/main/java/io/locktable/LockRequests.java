package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The lock item's schema and every request the protocol sends, built from the table's names and options (steps 2 to 7
 * of the protocol in {@code package-info.java}). Building a request sends nothing: {@link DynamoDbLockStore} does.
 */
final class LockRequests {

    static final String TYPE = "_type";
    static final String OWNER = "owner";
    static final String RVN = "rvn";
    static final String FENCE = "fence";
    static final String LEASE_MS = "leaseMs";
    static final String HOLDER = "holder";
    static final String LOCK_TYPE = "LOCK";
    static final String KEY_PREFIX = "LOCK#";
    static final String SORT_KEY_VALUE = "LOCK";

    private static final AttributeValue LOCK_TYPE_VALUE = AttributeValue.fromS(LOCK_TYPE);
    private static final AttributeValue ONE = AttributeValue.fromN("1");
    private static final AttributeValue NUMBER_TYPE = AttributeValue.fromS("N");

    private final String tableName;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final LockTableOptions options;

    LockRequests(String tableName, String partitionKey, @Nullable String sortKey, LockTableOptions options) {
        this.tableName = tableName;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
        this.options = options;
    }

    String tableName() {
        return tableName;
    }

    String partitionKey() {
        return partitionKey;
    }

    @Nullable
    String sortKey() {
        return sortKey;
    }

    /** The table that holds these locks, as {@code CreateTable} makes it and {@code DescribeTable} must show it. */
    TableDescription tableShape() {
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
        return TableDescription.builder()
                .tableName(tableName)
                .keySchema(keys)
                .attributeDefinitions(attributes)
                .build();
    }

    Map<String, AttributeValue> key(String name) {
        Map<String, AttributeValue> key = new HashMap<>(2);
        key.put(partitionKey, AttributeValue.fromS(KEY_PREFIX + name));
        if (sortKey != null) {
            key.put(sortKey, AttributeValue.fromS(SORT_KEY_VALUE));
        }
        return key;
    }

    GetItemRequest read(String name, Duration timeout) {
        return GetItemRequest.builder()
                .tableName(tableName)
                .key(key(name))
                .consistentRead(true)
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
    }

    /** Takes a lock that has no owner; refuses to write into an item that is not a lock item. */
    UpdateItemRequest acquireFree(
            String name, String owner, String rvn, Duration lease, Instant now, long fenceFloor, Duration timeout) {
        Expression expression = acquireWrite(owner, rvn, lease, now, fenceFloor);
        expression.name("#pk", partitionKey).value(":lockType", LOCK_TYPE_VALUE).value(":numberType", NUMBER_TYPE);
        // flat on purpose: an item that does not exist has no fence either, and dynalite evaluates a nested
        // condition several times slower
        String condition = "attribute_not_exists(#owner) AND (attribute_not_exists(#pk) OR #type = :lockType)"
                + " AND (attribute_not_exists(#fence) OR attribute_type(#fence, :numberType))";
        return acquireRequest(name, expression, condition, timeout);
    }

    /** Takes a lock over from a holder whose record version stayed {@code seenRvn} for a whole lease. */
    UpdateItemRequest takeOver(
            String name,
            String seenRvn,
            String owner,
            String rvn,
            Duration lease,
            Instant now,
            long fenceFloor,
            Duration timeout) {
        Expression expression = acquireWrite(owner, rvn, lease, now, fenceFloor);
        expression
                .value(":seenRvn", AttributeValue.fromS(seenRvn))
                .value(":lockType", LOCK_TYPE_VALUE)
                .value(":numberType", NUMBER_TYPE);
        String condition = "#rvn = :seenRvn AND #type = :lockType AND attribute_type(#fence, :numberType)";
        return acquireRequest(name, expression, condition, timeout);
    }

    /**
     * The write of an acquire. The fence rises by one; an item that has none (a new lock, or one whose item was
     * deleted) starts from {@code fenceFloor}, the highest fence this table knows for the lock, so a recreated item's
     * tokens continue instead of starting at 1 again.
     */
    private Expression acquireWrite(String owner, String rvn, Duration lease, Instant now, long fenceFloor) {
        Expression expression = new Expression()
                .name("#owner", OWNER)
                .name("#rvn", RVN)
                .name("#leaseMs", LEASE_MS)
                .name("#type", TYPE)
                .name("#fence", FENCE)
                .name("#holder", HOLDER)
                .value(":owner", AttributeValue.fromS(owner))
                .value(":rvn", AttributeValue.fromS(rvn))
                .value(":leaseMs", AttributeValue.fromN(Long.toString(lease.toMillis())))
                .value(":one", ONE)
                .value(":fenceFloor", AttributeValue.fromN(Long.toString(Math.max(0, fenceFloor))));
        StringBuilder set = new StringBuilder("SET #owner = :owner, #rvn = :rvn, #leaseMs = :leaseMs,"
                + " #type = :lockType, #fence = if_not_exists(#fence, :fenceFloor) + :one");
        String remove = "";
        if (options.holder().isPresent()) {
            set.append(", #holder = :holder");
            expression.value(":holder", AttributeValue.fromS(options.holder().get()));
        } else {
            remove = " REMOVE #holder";
        }
        appendTimeToLive(set, expression, lease, now);
        expression.update(set + remove);
        return expression;
    }

    private UpdateItemRequest acquireRequest(String name, Expression expression, String condition, Duration timeout) {
        return UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(name))
                .updateExpression(expression.update())
                .conditionExpression(condition)
                .expressionAttributeNames(expression.names())
                .expressionAttributeValues(expression.values())
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
    }

    /**
     * Renews: sets a new record version if this lease still owns the item with one of the versions it may have
     * written ({@code candidates}: the last confirmed one and those of attempts whose answer never came).
     */
    UpdateItemRequest renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        Expression expression = new Expression()
                .name("#owner", OWNER)
                .name("#rvn", RVN)
                .name("#fence", FENCE)
                .name("#leaseMs", LEASE_MS)
                .value(":owner", AttributeValue.fromS(lease.owner()))
                .value(":fence", AttributeValue.fromN(Long.toString(lease.fencingToken())))
                .value(":newRvn", AttributeValue.fromS(newRvn))
                .value(
                        ":leaseMs",
                        AttributeValue.fromN(Long.toString(lease.duration().toMillis())));
        StringBuilder set = new StringBuilder("SET #rvn = :newRvn, #leaseMs = :leaseMs");
        appendTimeToLive(set, expression, lease.duration(), now);
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < candidates.size(); i++) {
            String placeholder = ":c" + i;
            expression.value(placeholder, AttributeValue.fromS(candidates.get(i)));
            in.append(i == 0 ? "" : ", ").append(placeholder);
        }
        return UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(lease.name()))
                .updateExpression(set.toString())
                .conditionExpression("#owner = :owner AND #fence = :fence AND #rvn IN (" + in + ")")
                .expressionAttributeNames(expression.names())
                .expressionAttributeValues(expression.values())
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
    }

    /** Releases: removes the owner if this acquisition still holds the item. The item and its fence stay. */
    UpdateItemRequest release(LeaseRef lease, Duration timeout) {
        return UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(lease.name()))
                .updateExpression("REMOVE #owner, #holder")
                .conditionExpression("#owner = :owner AND #fence = :fence")
                .expressionAttributeNames(Map.of("#owner", OWNER, "#holder", HOLDER, "#fence", FENCE))
                .expressionAttributeValues(heldValues(lease))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
    }

    /** Gives back an acquire whose answer never came, if it was applied: conditional on its record version. */
    UpdateItemRequest giveBack(String name, String owner, String rvn, Duration timeout) {
        return UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(name))
                .updateExpression("REMOVE #owner, #holder")
                .conditionExpression("#owner = :owner AND #rvn = :rvn")
                .expressionAttributeNames(Map.of("#owner", OWNER, "#holder", HOLDER, "#rvn", RVN))
                .expressionAttributeValues(
                        Map.of(":owner", AttributeValue.fromS(owner), ":rvn", AttributeValue.fromS(rvn)))
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
    }

    /** The condition "this acquisition still holds the lock", as an expression on the lock item. */
    static final String HELD_CONDITION = "#owner = :owner AND #fence = :fence";

    static Map<String, String> heldNames() {
        return Map.of("#owner", OWNER, "#fence", FENCE);
    }

    static Map<String, AttributeValue> heldValues(LeaseRef lease) {
        return Map.of(
                ":owner",
                AttributeValue.fromS(lease.owner()),
                ":fence",
                AttributeValue.fromN(Long.toString(lease.fencingToken())));
    }

    TransactWriteItem heldCheck(LeaseRef lease) {
        return TransactWriteItem.builder()
                .conditionCheck(ConditionCheck.builder()
                        .tableName(tableName)
                        .key(key(lease.name()))
                        .conditionExpression(HELD_CONDITION)
                        .expressionAttributeNames(heldNames())
                        .expressionAttributeValues(heldValues(lease))
                        .build())
                .build();
    }

    private void appendTimeToLive(StringBuilder set, Expression expression, Duration lease, Instant now) {
        Optional<String> attribute = options.timeToLiveAttribute();
        if (attribute.isPresent()) {
            long expiresAt = now.plus(lease).plus(options.timeToLiveRetention()).getEpochSecond();
            set.append(", #ttl = :ttl");
            expression.name("#ttl", attribute.get()).value(":ttl", AttributeValue.fromN(Long.toString(expiresAt)));
        }
    }

    /** Collects an update expression with its attribute names and values. */
    private static final class Expression {
        private final Map<String, String> names = new HashMap<>();
        private final Map<String, AttributeValue> values = new HashMap<>();
        private String update;

        Expression name(String placeholder, String attribute) {
            names.put(placeholder, attribute);
            return this;
        }

        Expression value(String placeholder, AttributeValue value) {
            values.put(placeholder, value);
            return this;
        }

        void update(String update) {
            this.update = update;
        }

        String update() {
            return update;
        }

        Map<String, String> names() {
            return names;
        }

        Map<String, AttributeValue> values() {
            return values;
        }
    }
}
