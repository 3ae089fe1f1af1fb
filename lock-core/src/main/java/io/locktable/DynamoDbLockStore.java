package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The lock store over a {@link DynamoDbClient}: the only class of lock-core that sends a request. It maps each answer
 * to an outcome, recognises its own write when the SDK retried one whose answer was lost, and reports every request
 * to the listeners once.
 */
final class DynamoDbLockStore implements LockStore {

    private final DynamoDbClient client;
    private final LockRequests requests;
    private final Listeners listeners;

    DynamoDbLockStore(DynamoDbClient client, LockRequests requests, Listeners listeners) {
        this.client = client;
        this.requests = requests;
        this.listeners = listeners;
    }

    @Override
    public String tableName() {
        return requests.tableName();
    }

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
                            seenRvn == null
                                    ? requests.acquireFree(name, owner, rvn, lease, now, fenceFloor, timeout)
                                    : requests.takeOver(name, seenRvn, owner, rvn, lease, now, fenceFloor, timeout)));
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

    @Override
    public @Nullable StoredLock read(String name, Duration timeout) {
        return parse(
                name,
                send(name, () -> client.getItem(requests.read(name, timeout))).item());
    }

    @Override
    public RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        try {
            // the condition accepts the new version too, so a retry after an applied attempt succeeds
            send(lease.name(), () -> client.updateItem(requests.renew(lease, candidates, newRvn, timeout, now)));
            return RenewAnswer.RENEWED;
        } catch (ConditionalCheckFailedException e) {
            return RenewAnswer.LOST;
        }
    }

    @Override
    public ReleaseAnswer release(LeaseRef lease, Duration timeout) {
        try {
            evenIfInterrupted(() -> send(lease.name(), () -> client.updateItem(requests.release(lease, timeout))));
            return ReleaseAnswer.RELEASED;
        } catch (ConditionalCheckFailedException e) {
            Map<String, AttributeValue> item = e.hasItem() ? e.item() : Map.of();
            boolean ownRetry = !item.containsKey(LockRequests.OWNER)
                    && item.containsKey(LockRequests.FENCE)
                    && Long.toString(lease.fencingToken())
                            .equals(item.get(LockRequests.FENCE).n());
            return ownRetry ? ReleaseAnswer.RELEASED : ReleaseAnswer.NOT_OURS;
        }
    }

    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        try {
            evenIfInterrupted(() -> send(name, () -> client.updateItem(requests.giveBack(name, owner, rvn, timeout))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    @Override
    public TransactWriteItem heldCheck(LeaseRef lease) {
        return requests.heldCheck(lease);
    }

    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> items) {
        List<TransactWriteItem> all = new ArrayList<>(items.size() + 1);
        all.add(requests.heldCheck(lease));
        all.addAll(items);
        send(
                lease.name(),
                () -> client.transactWriteItems(
                        TransactWriteItemsRequest.builder().transactItems(all).build()));
    }

    @Override
    public TableDescription describe() {
        return client.describeTable(r -> r.tableName(requests.tableName())).table();
    }

    @Override
    public boolean createTable() {
        String table = requests.tableName();
        try {
            client.describeTable(r -> r.tableName(table));
            return false;
        } catch (ResourceNotFoundException e) {
            // created below
        }
        TableDescription shape = requests.tableShape();
        boolean created;
        try {
            client.createTable(r -> r.tableName(table)
                    .keySchema(shape.keySchema())
                    .attributeDefinitions(shape.attributeDefinitions())
                    .billingMode(BillingMode.PAY_PER_REQUEST));
            created = true;
        } catch (ResourceInUseException e) {
            created = false; // another process is creating it
        }
        client.waiter().waitUntilTableExists(r -> r.tableName(table));
        return created;
    }

    @Override
    public void enableTimeToLive(String attribute) {
        client.updateTimeToLive(r -> r.tableName(requests.tableName())
                .timeToLiveSpecification(s -> s.enabled(true).attributeName(attribute)));
    }

    @Override
    public @Nullable TimeToLiveDescription describeTimeToLive() {
        return client.describeTimeToLive(r -> r.tableName(requests.tableName())).timeToLiveDescription();
    }

    private @Nullable StoredLock parse(String name, Map<String, AttributeValue> item) {
        return StoredLock.parse(name, requests.tableName(), item);
    }

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

    /**
     * Sends a request that must go out even when the caller's thread was interrupted (the SDK aborts at once on an
     * interrupted thread): the flag is cleared for the request and set again after.
     */
    private static <T> T evenIfInterrupted(Supplier<T> request) {
        boolean interrupted = Thread.interrupted();
        try {
            return request.get();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
