package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The lock store over DynamoDB, through either SDK client ({@link DynamoDbRequests}): the only class of lock-core that
 * sends a request about a lock item. Each method builds its request (steps 2 to 7 of the protocol in {@code
 * package-info.java}) beside where it sends it, maps the answer to an outcome, recognises its own write when the SDK
 * retried one whose answer was lost, and reports every request to the listeners once. The lock item's attributes are
 * named here once (step 1), and an item read is checked to be a lock item ({@link #parse}). The table itself, checked
 * (step 9) or created, is {@link DynamoDbTableAdmin}'s.
 */
final class DynamoDbLockStore implements LockStore {

    // ---- step 1: the lock item

    /** The prefix of a lock's partition key, {@code LOCK#<name>}. */
    static final String KEY_PREFIX = "LOCK#";

    private static final String SORT_KEY_VALUE = "LOCK";
    private static final String TYPE = "_type";
    private static final String OWNER = "owner";
    private static final String RVN = "rvn";
    private static final String FENCE = "fence";
    private static final String LEASE_MS = "leaseMs";
    private static final String HOLDER = "holder";
    private static final String LOCK_TYPE = "LOCK";

    private static final AttributeValue LOCK_TYPE_VALUE = AttributeValue.fromS(LOCK_TYPE);
    private static final AttributeValue ONE = AttributeValue.fromN("1");
    private static final AttributeValue NUMBER_TYPE = AttributeValue.fromS("N");

    private final DynamoDbRequests client;
    private final String tableName;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final LockTableOptions options;
    private final Listeners listeners;
    private final DynamoDbTableAdmin table;

    DynamoDbLockStore(
            DynamoDbRequests client,
            String tableName,
            String partitionKey,
            @Nullable String sortKey,
            LockTableOptions options,
            Listeners listeners) {
        this.client = client;
        this.tableName = tableName;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
        this.options = options;
        this.listeners = listeners;
        this.table = new DynamoDbTableAdmin(
                client,
                tableName,
                partitionKey,
                sortKey,
                options.timeToLiveAttribute().orElse(null));
    }

    @Override
    public String tableName() {
        return tableName;
    }

    // ---- steps 2 to 4: acquire

    @Override
    public AcquireAnswer acquire(
            String name,
            @Nullable String seenRvn,
            String owner,
            String rvn,
            Duration lease,
            Instant now,
            long fenceFloor,
            Duration timeout) {
        try {
            UpdateItemResponse response = send(
                    name,
                    () -> client.updateItem(
                            acquireRequest(name, seenRvn, owner, rvn, lease, now, fenceFloor, timeout)));
            return new Granted(parse(name, response.attributes()), false);
        } catch (ConditionalCheckFailedException e) {
            // engines that do not return the item on a condition failure are read once (step 3)
            StoredLock current = e.hasItem() && !e.item().isEmpty() ? parse(name, e.item()) : read(name, timeout);
            if (Protocol.isOwnWrite(current, owner, rvn)) {
                // an earlier attempt of this very write was applied and its answer lost; the SDK's retry failed on it
                return new Granted(current, true);
            }
            return new Refused(current);
        }
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

    /**
     * The request of an acquire: step 2 ({@code seenRvn} null) takes a lock that has no owner and refuses to write
     * into an item that is not a lock item; step 4 takes a lock over from a holder whose record version stayed {@code
     * seenRvn} for a whole lease.
     */
    private UpdateItemRequest acquireRequest(
            String name,
            @Nullable String seenRvn,
            String owner,
            String rvn,
            Duration lease,
            Instant now,
            long fenceFloor,
            Duration timeout) {
        Expression expression = acquireWrite(owner, rvn, lease, now, fenceFloor)
                .value(":lockType", LOCK_TYPE_VALUE)
                .value(":numberType", NUMBER_TYPE);
        String condition;
        if (seenRvn == null) {
            expression.name("#pk", partitionKey);
            // flat on purpose: an item that does not exist has no fence either, and dynalite evaluates a nested
            // condition several times slower
            condition = "attribute_not_exists(#owner) AND (attribute_not_exists(#pk) OR #type = :lockType)"
                    + " AND (attribute_not_exists(#fence) OR attribute_type(#fence, :numberType))";
        } else {
            expression.value(":seenRvn", AttributeValue.fromS(seenRvn));
            condition = "#rvn = :seenRvn AND #type = :lockType AND attribute_type(#fence, :numberType)";
        }
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

    @Override
    public @Nullable StoredLock read(String name, Duration timeout) {
        GetItemRequest request = GetItemRequest.builder()
                .tableName(tableName)
                .key(key(name))
                .consistentRead(true)
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
        return parse(name, send(name, () -> client.getItem(request)).item());
    }

    // ---- step 5: renew

    /**
     * Sets a new record version if this lease still owns the item with one of the versions it may have written
     * ({@code candidates}: the last confirmed one and those of attempts whose answer never came).
     */
    @Override
    public RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
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
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(lease.name()))
                .updateExpression(set.toString())
                .conditionExpression("#owner = :owner AND #fence = :fence AND #rvn IN (" + in + ")")
                .expressionAttributeNames(expression.names())
                .expressionAttributeValues(expression.values())
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
        try {
            // the condition accepts the new version too, so a retry after an applied attempt succeeds
            send(lease.name(), () -> client.updateItem(request));
            return RenewAnswer.RENEWED;
        } catch (ConditionalCheckFailedException e) {
            return RenewAnswer.LOST;
        }
    }

    // ---- step 6: release, and the give-back of an acquire whose answer never came

    /** Removes the owner if this acquisition still holds the item. The item and its fence stay. */
    @Override
    public ReleaseAnswer release(LeaseRef lease, Duration timeout) {
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(lease.name()))
                .updateExpression("REMOVE #owner, #holder")
                .conditionExpression("#owner = :owner AND #fence = :fence")
                .expressionAttributeNames(Map.of("#owner", OWNER, "#holder", HOLDER, "#fence", FENCE))
                .expressionAttributeValues(heldValues(lease))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
        try {
            send(lease.name(), () -> client.updateItemEvenIfInterrupted(request));
            return ReleaseAnswer.RELEASED;
        } catch (ConditionalCheckFailedException e) {
            Map<String, AttributeValue> item = e.hasItem() ? e.item() : Map.of();
            boolean ownRetry = !item.containsKey(OWNER)
                    && item.containsKey(FENCE)
                    && Long.toString(lease.fencingToken())
                            .equals(item.get(FENCE).n());
            return ownRetry ? ReleaseAnswer.RELEASED : ReleaseAnswer.NOT_OURS;
        }
    }

    /** Conditional on the acquire's owner and record version: the answer that would have told its fence never came. */
    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(key(name))
                .updateExpression("REMOVE #owner, #holder")
                .conditionExpression("#owner = :owner AND #rvn = :rvn")
                .expressionAttributeNames(Map.of("#owner", OWNER, "#holder", HOLDER, "#rvn", RVN))
                .expressionAttributeValues(
                        Map.of(":owner", AttributeValue.fromS(owner), ":rvn", AttributeValue.fromS(rvn)))
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
        try {
            send(name, () -> client.updateItemEvenIfInterrupted(request));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    // ---- step 7: fencing

    @Override
    public TransactWriteItem heldCheck(LeaseRef lease) {
        return heldCheck(tableName, partitionKey, sortKey, lease);
    }

    /**
     * The condition "this acquisition still holds the lock" on the lock item of a table, for a {@code
     * TransactWriteItems}; {@link MemoryLockStore} hands out the same.
     */
    static TransactWriteItem heldCheck(
            String tableName, String partitionKey, @Nullable String sortKey, LeaseRef lease) {
        return TransactWriteItem.builder()
                .conditionCheck(ConditionCheck.builder()
                        .tableName(tableName)
                        .key(key(partitionKey, sortKey, lease.name()))
                        .conditionExpression("#owner = :owner AND #fence = :fence")
                        .expressionAttributeNames(Map.of("#owner", OWNER, "#fence", FENCE))
                        .expressionAttributeValues(heldValues(lease))
                        .build())
                .build();
    }

    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> items) {
        List<TransactWriteItem> all = new ArrayList<>(items.size() + 1);
        all.add(heldCheck(lease));
        all.addAll(items);
        send(
                lease.name(),
                () -> client.transactWriteItems(
                        TransactWriteItemsRequest.builder().transactItems(all).build()));
    }

    private static Map<String, AttributeValue> heldValues(LeaseRef lease) {
        return Map.of(
                ":owner",
                AttributeValue.fromS(lease.owner()),
                ":fence",
                AttributeValue.fromN(Long.toString(lease.fencingToken())));
    }

    // ---- step 9: the table

    @Override
    public boolean verifyTable() {
        return table.verify();
    }

    @Override
    public boolean createTableIfMissing() {
        return table.createIfMissing();
    }

    // ---- the item's key, its time to live, and reading it

    private Map<String, AttributeValue> key(String name) {
        return key(partitionKey, sortKey, name);
    }

    private static Map<String, AttributeValue> key(String partitionKey, @Nullable String sortKey, String name) {
        Map<String, AttributeValue> key = new HashMap<>(2);
        key.put(partitionKey, AttributeValue.fromS(KEY_PREFIX + name));
        if (sortKey != null) {
            key.put(sortKey, AttributeValue.fromS(SORT_KEY_VALUE));
        }
        return key;
    }

    private void appendTimeToLive(StringBuilder set, Expression expression, Duration lease, Instant now) {
        Optional<String> attribute = options.timeToLiveAttribute();
        if (attribute.isPresent()) {
            long expiresAt = now.plus(lease).plus(options.timeToLiveRetention()).getEpochSecond();
            set.append(", #ttl = :ttl");
            expression.name("#ttl", attribute.get()).value(":ttl", AttributeValue.fromN(Long.toString(expiresAt)));
        }
    }

    /**
     * Reads a lock item, refusing anything else.
     *
     * @return the lock, or null when there is no item
     * @throws LockItemConflictException when the item is not a lock item
     */
    private @Nullable StoredLock parse(String name, @Nullable Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return null;
        }
        AttributeValue type = item.get(TYPE);
        if (type == null || !LOCK_TYPE.equals(type.s())) {
            throw new LockItemConflictException(
                    name, tableName, type == null ? "it has no _type attribute" : "its _type is not LOCK");
        }
        String owner = string(item, OWNER, name);
        String rvn = string(item, RVN, name);
        Long fence = number(item, FENCE, name);
        Long leaseMs = number(item, LEASE_MS, name);
        if (owner != null && (rvn == null || fence == null || leaseMs == null)) {
            throw new LockItemConflictException(
                    name, tableName, "it has an owner but lacks one of rvn, fence and leaseMs");
        }
        if (owner != null && !LockTable.isLeaseDuration(Duration.ofMillis(leaseMs))) {
            // zero would mean an instant takeover, a huge value an overflow: neither is a lease LockTable writes
            throw new LockItemConflictException(
                    name,
                    tableName,
                    "its leaseMs " + leaseMs + " is outside " + Timing.MIN_LEASE.toMillis() + " to "
                            + Timing.MAX_LEASE.toMillis() + " ms");
        }
        String holder = item.containsKey(HOLDER) ? item.get(HOLDER).s() : null;
        return new StoredLock(name, owner, holder, rvn, fence == null ? 0 : fence, leaseMs == null ? 0 : leaseMs);
    }

    private @Nullable String string(Map<String, AttributeValue> item, String attribute, String name) {
        AttributeValue value = item.get(attribute);
        if (value == null) {
            return null;
        }
        if (value.s() == null) {
            throw new LockItemConflictException(name, tableName, "its " + attribute + " is not a string");
        }
        return value.s();
    }

    private @Nullable Long number(Map<String, AttributeValue> item, String attribute, String name) {
        AttributeValue value = item.get(attribute);
        if (value == null) {
            return null;
        }
        try {
            if (value.n() != null) {
                return Long.parseLong(value.n());
            }
        } catch (NumberFormatException e) {
            // falls through to the conflict below
        }
        throw new LockItemConflictException(name, tableName, "its " + attribute + " is not a whole number");
    }

    // ---- sending

    /** Sends one request and reports it: a condition failure is an answer, anything else thrown a failure. */
    private <T> T send(String name, Supplier<T> request) {
        try {
            T answer = request.get();
            listeners.onRequestSucceeded(name);
            return answer;
        } catch (ConditionalCheckFailedException | TransactionCanceledException e) {
            listeners.onRequestSucceeded(name);
            throw e;
        } catch (RuntimeException e) {
            listeners.onRequestFailed(name, e);
            throw e;
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
