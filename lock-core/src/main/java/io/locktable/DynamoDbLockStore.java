package io.locktable;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;

/**
 * The lock store over DynamoDB, through either SDK client ({@link Requests}): the only class that sends a request.
 * Each method builds its request (steps 2 to 7 of {@code package-info.java}), maps the answer to an outcome,
 * recognises its own write when the SDK retried one whose answer was lost, and reports every request to the listeners
 * once. The item's attributes are named here once (step 1); the table is checked (step 9) or created here too.
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

    /** The first version of global tables: every replica takes writes, and conditions are checked per region. */
    private static final String LEGACY_GLOBAL_TABLES = "2017.11.29";

    /** Step 6's update: the owner goes, the item and its fence stay. */
    private static final String RELEASE = "REMOVE #owner, #holder";

    /** The held check (steps 6 and 7): this acquisition's owner and fence. */
    private static final String HELD = "#owner = :owner AND #fence = :fence";

    private static final Map<String, String> RELEASE_NAMES =
            Map.of("#owner", OWNER, "#holder", HOLDER, "#fence", FENCE);

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final Requests client;
    private final String tableName;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final LockTableOptions options;
    private final Listeners listeners;
    private final @Nullable String timeToLive;
    /** Enabling the time to live failed with a WARN: {@link #verifyTable()} does not warn again. */
    private volatile boolean timeToLiveWarned;

    DynamoDbLockStore(
            Requests client,
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
        this.timeToLive = options.timeToLiveAttribute().orElse(null);
    }

    @Override
    public String tableName() {
        return tableName;
    }

    // ---- steps 2 to 4: acquire

    @Override
    public AcquireAnswer acquire(AcquireRequest request) {
        String name = request.name();
        try {
            UpdateItemResponse response = send(name, () -> client.updateItem(acquireUpdate(request)));
            return new Granted(parseAnswer(name, response.attributes(), request.timeout()), false);
        } catch (ConditionalCheckFailedException e) {
            // engines that do not return the item on a condition failure are read once (step 3)
            StoredLock current = e.hasItem() && !e.item().isEmpty()
                    ? parseAnswer(name, e.item(), request.timeout())
                    : read(name, request.timeout());
            if (Protocol.isOwnWrite(current, request.owner(), request.rvn())) {
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
    private Expression acquireWrite(AcquireRequest request) {
        Duration lease = request.lease();
        Expression expression = new Expression()
                .name("#owner", OWNER)
                .name("#rvn", RVN)
                .name("#leaseMs", LEASE_MS)
                .name("#type", TYPE)
                .name("#fence", FENCE)
                .name("#holder", HOLDER)
                .value(":owner", AttributeValue.fromS(request.owner()))
                .value(":rvn", AttributeValue.fromS(request.rvn()))
                .value(":leaseMs", AttributeValue.fromN(Long.toString(lease.toMillis())))
                .value(":one", ONE)
                .value(":fenceFloor", AttributeValue.fromN(Long.toString(Math.max(0, request.fenceFloor()))));
        StringBuilder set = new StringBuilder("SET #owner = :owner, #rvn = :rvn, #leaseMs = :leaseMs,"
                + " #type = :lockType, #fence = if_not_exists(#fence, :fenceFloor) + :one");
        String remove = "";
        if (options.holder().isPresent()) {
            set.append(", #holder = :holder");
            expression.value(":holder", AttributeValue.fromS(options.holder().get()));
        } else {
            remove = " REMOVE #holder";
        }
        appendTimeToLive(set, expression, lease, request.now());
        expression.update(set + remove);
        return expression;
    }

    /**
     * The UpdateItem of an acquire: step 2 ({@code seenRvn} null) takes a lock that has no owner and refuses to write
     * into an item that is not a lock item; step 4 takes a lock over from a holder whose record version stayed {@code
     * seenRvn} for a whole lease.
     */
    private UpdateItemRequest acquireUpdate(AcquireRequest request) {
        Expression expression =
                acquireWrite(request).value(":lockType", LOCK_TYPE_VALUE).value(":numberType", NUMBER_TYPE);
        String seenRvn = request.seenRvn();
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
                .key(key(request.name()))
                .updateExpression(expression.update())
                .conditionExpression(condition)
                .expressionAttributeNames(expression.names())
                .expressionAttributeValues(expression.values())
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .overrideConfiguration(o -> o.apiCallTimeout(request.timeout()))
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
                .updateExpression(RELEASE)
                .conditionExpression(HELD)
                .expressionAttributeNames(RELEASE_NAMES)
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
                .updateExpression(RELEASE)
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
                        .conditionExpression(HELD)
                        .expressionAttributeNames(Map.of("#owner", OWNER, "#fence", FENCE))
                        .expressionAttributeValues(heldValues(lease))
                        .build())
                .build();
    }

    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> items, boolean release) {
        List<TransactWriteItem> all = new ArrayList<>(items.size() + 1);
        all.add(release ? releaseInTransaction(lease) : heldCheck(lease));
        all.addAll(items);
        try {
            send(
                    lease.name(),
                    () -> client.transactWriteItems(TransactWriteItemsRequest.builder()
                            .transactItems(all)
                            .build()));
        } catch (DynamoDbException e) {
            if (e.awsErrorDetails() == null
                    || !"UnknownOperationException".equals(e.awsErrorDetails().errorCode())) {
                throw e;
            }
            // an engine without transactions (dynalite): the same exception, saying what it means
            throw (DynamoDbException) DynamoDbException.builder()
                    .message("Lock table '" + tableName + "': its engine refused TransactWriteItems, which "
                            + (release ? "commitAndRelease" : "transactWrite") + " needs: it has no transactions;"
                            + " nothing was written and lock '" + lease.name() + "' is still held. Fence with"
                            + " fencingToken() there. " + e.getMessage())
                    .awsErrorDetails(e.awsErrorDetails())
                    .statusCode(e.statusCode())
                    .requestId(e.requestId())
                    .cause(e)
                    .build();
        }
    }

    /**
     * Step 6 as the first item of a transaction: the release's update of the lock item, on the held check's condition.
     * The SDK gives the request a client token, so its own retry of an applied transaction is answered as applied.
     */
    private TransactWriteItem releaseInTransaction(LeaseRef lease) {
        return TransactWriteItem.builder()
                .update(Update.builder()
                        .tableName(tableName)
                        .key(key(lease.name()))
                        .updateExpression(RELEASE)
                        .conditionExpression(HELD)
                        .expressionAttributeNames(RELEASE_NAMES)
                        .expressionAttributeValues(heldValues(lease))
                        .build())
                .build();
    }

    private static Map<String, AttributeValue> heldValues(LeaseRef lease) {
        return Map.of(
                ":owner",
                AttributeValue.fromS(lease.owner()),
                ":fence",
                AttributeValue.fromN(Long.toString(lease.fencingToken())));
    }

    // ---- step 9: the table

    /**
     * Creates the table unless it exists, and enables its time to live on the lock items' attribute if this call
     * created it. A time to live that cannot be enabled is logged: the locks work without it.
     *
     * @return true if this call created the table
     */
    @Override
    public boolean createTableIfMissing() {
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
            client.describeTable(describeTableRequest());
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
    @Override
    public boolean verifyTable() {
        TableDescription table = client.describeTable(describeTableRequest()).table();
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

    private DescribeTableRequest describeTableRequest() {
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
            long expiresAt = expiresAt(now.plus(lease), options.timeToLiveRetention());
            set.append(", #ttl = :ttl");
            expression.name("#ttl", attribute.get()).value(":ttl", AttributeValue.fromN(Long.toString(expiresAt)));
        }
    }

    /**
     * The time to live in epoch seconds: a retention too long to add ({@code ChronoUnit.FOREVER.getDuration()}) is
     * the latest instant, which never expires, rather than an error at every acquire and renewal.
     */
    private static long expiresAt(Instant leaseEnd, Duration retention) {
        try {
            return leaseEnd.plus(retention).getEpochSecond();
        } catch (ArithmeticException | DateTimeException tooLong) {
            return Instant.MAX.getEpochSecond();
        }
    }

    /**
     * Reads the item a write's answer carries; one that is not a lock item is confirmed with a strongly consistent
     * read before it is called foreign, so that an engine whose answers contradict each other (no item there, or a
     * lock item) is named as the cause rather than an item that does not exist.
     */
    private @Nullable StoredLock parseAnswer(
            String name, @Nullable Map<String, AttributeValue> item, Duration timeout) {
        try {
            return parse(name, item);
        } catch (LockItemConflictException conflict) {
            StoredLock stored = read(name, timeout); // throws the conflict again if the item is there
            throw LockItemConflictException.inconsistentAnswer(conflict, stored == null ? "no item" : "a lock item");
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
        if (owner != null && !Timing.isLease(Duration.ofMillis(leaseMs))) {
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

    /**
     * The operations sent, over either SDK client (exactly one is set), each blocking until the answer and failing
     * with the SDK's exception, so a failure reads the same over both. A call on an interrupted thread, or
     * interrupted while it waits, throws {@link AbortedException} with the interrupt flag set, as the synchronous
     * client does; {@link #updateItemEvenIfInterrupted} is for the release and the give-back, which must go out even
     * then. Over the asynchronous client an interrupt while waiting cancels the future, aborting the request.
     */
    record Requests(@Nullable DynamoDbClient sync, @Nullable DynamoDbAsyncClient async) {

        static Requests over(DynamoDbClient client) {
            return new Requests(client, null);
        }

        static Requests over(DynamoDbAsyncClient client) {
            return new Requests(null, client);
        }

        UpdateItemResponse updateItem(UpdateItemRequest request) {
            return sync != null ? sync.updateItem(request) : send(async::updateItem, request);
        }

        GetItemResponse getItem(GetItemRequest request) {
            return sync != null ? sync.getItem(request) : send(async::getItem, request);
        }

        TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
            return sync != null ? sync.transactWriteItems(request) : send(async::transactWriteItems, request);
        }

        DescribeTableResponse describeTable(DescribeTableRequest request) {
            return sync != null ? sync.describeTable(request) : send(async::describeTable, request);
        }

        CreateTableResponse createTable(CreateTableRequest request) {
            return sync != null ? sync.createTable(request) : send(async::createTable, request);
        }

        UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
            return sync != null ? sync.updateTimeToLive(request) : send(async::updateTimeToLive, request);
        }

        DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
            return sync != null ? sync.describeTimeToLive(request) : send(async::describeTimeToLive, request);
        }

        /** Waits, with the SDK's waiter, until the table exists and is active. */
        void waitUntilTableExists(String tableName) {
            if (sync != null) {
                sync.waiter().waitUntilTableExists(r -> r.tableName(tableName));
            } else {
                send(name -> async.waiter().waitUntilTableExists(r -> r.tableName(name)), tableName);
            }
        }

        /**
         * Sent and waited for even on an interrupted thread; the interrupt is kept for the caller. The flag is
         * cleared for the request: the synchronous SDK aborts at once on an interrupted thread, and preparing an
         * asynchronous request (resolving credentials, for one) may wait too. Its {@code apiCallTimeout} bounds it.
         */
        UpdateItemResponse updateItemEvenIfInterrupted(UpdateItemRequest request) {
            boolean interrupted = Thread.interrupted();
            try {
                if (sync != null) {
                    return sync.updateItem(request);
                }
                CompletableFuture<UpdateItemResponse> answer = async.updateItem(request);
                while (true) {
                    try {
                        return answer.get();
                    } catch (InterruptedException e) {
                        interrupted = true; // kept for the caller; the request goes on
                    } catch (ExecutionException | CancellationException e) {
                        throw unwrapped(e);
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Sends and waits. A thread interrupted before the request is not sent at all, as with the synchronous
         * client; one interrupted while it waits cancels the request in flight, which may have been applied all the
         * same (the caller reads an {@link AbortedException} as such: {@link LockStore#mayHaveApplied}).
         */
        private static <Q, R> R send(Function<Q, CompletableFuture<R>> operation, Q request) {
            if (Thread.interrupted()) {
                throw aborted(new InterruptedException("interrupted before the request was sent"));
            }
            CompletableFuture<R> answer = operation.apply(request);
            try {
                return answer.get();
            } catch (InterruptedException e) {
                answer.cancel(true);
                throw aborted(e);
            } catch (ExecutionException | CancellationException e) {
                throw unwrapped(e);
            }
        }

        /** Sets the interrupt flag again, as the synchronous client leaves it. */
        private static AbortedException aborted(InterruptedException cause) {
            Thread.currentThread().interrupt();
            return AbortedException.builder()
                    .message("Thread was interrupted")
                    .cause(cause)
                    .build();
        }

        /**
         * The SDK's exception from a failed future, as the synchronous client would have thrown it; the caller's
         * stack is added as a suppressed exception, since the SDK's names only the threads of the HTTP client.
         */
        private static RuntimeException unwrapped(Exception failure) {
            Throwable cause = failure;
            while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                    && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof CancellationException cancelled) {
                return AbortedException.builder()
                        .message("The request was cancelled")
                        .cause(cancelled)
                        .build();
            }
            if (cause instanceof Error error) {
                throw error;
            }
            RuntimeException thrown = cause instanceof RuntimeException runtime
                    ? runtime
                    : SdkClientException.builder()
                            .message(cause.toString())
                            .cause(cause)
                            .build();
            if (!(thrown instanceof ConditionalCheckFailedException)) {
                // a failed condition is an answer the store reads, often (a busy lock): no stack to capture for it
                thrown.addSuppressed(new CallerStack());
            }
            return thrown;
        }

        /** Where the caller waited for an answer that failed on a thread of the HTTP client. */
        static final class CallerStack extends Exception {
            private static final long serialVersionUID = 1L;

            CallerStack() {
                super("waited for the asynchronous client's answer here");
            }
        }
    }
}
