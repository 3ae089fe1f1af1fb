package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * The lock items of a table kept in this JVM's memory, for {@link LockTable#inMemory}: each request does to the
 * items what the conditional request of {@link DynamoDbLockStore} does to a DynamoDB item, atomically, so the protocol
 * above it cannot tell the difference (the contract suite of lock-test runs the same cases on both). It has no
 * network, so no request is ever lost, late or retried; tests that need those script them around it.
 */
final class MemoryLockStore implements LockStore {

    /** The items of one in-memory table, shared by every lock table of that name in the JVM, as processes share one. */
    static final class Items {
        private static final Map<String, Items> TABLES = new ConcurrentHashMap<>();

        private final Map<String, StoredLock> byName = new ConcurrentHashMap<>();

        /** The items of the in-memory table of that name, made on first use; they live as long as the JVM. */
        static Items named(String tableName) {
            return TABLES.computeIfAbsent(tableName, key -> new Items());
        }

        @Nullable
        StoredLock get(String name) {
            return byName.get(name);
        }

        void put(StoredLock item) {
            byName.put(item.name(), item);
        }

        /** Deletes an item, as an operator or a restore would. */
        void delete(String name) {
            byName.remove(name);
        }
    }

    private final String tableName;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final Items items;
    private final @Nullable String holder;

    MemoryLockStore(
            String tableName, String partitionKey, @Nullable String sortKey, Items items, LockTableOptions options) {
        this.tableName = tableName;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
        this.items = items;
        this.holder = options.holder().orElse(null);
    }

    @Override
    public String tableName() {
        return tableName;
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
        synchronized (items) {
            StoredLock item = items.get(name);
            boolean free = seenRvn == null && (item == null || item.owner() == null);
            boolean due = seenRvn != null && item != null && seenRvn.equals(item.rvn());
            if (!free && !due) {
                return new Refused(item);
            }
            long fence = Protocol.nextFence(item, fenceFloor);
            StoredLock mine = new StoredLock(name, owner, holder, rvn, fence, lease.toMillis());
            items.put(mine);
            return new Granted(mine, false);
        }
    }

    @Override
    public @Nullable StoredLock read(String name, Duration timeout) {
        return items.get(name);
    }

    @Override
    public RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        synchronized (items) {
            StoredLock item = items.get(lease.name());
            if (!holds(item, lease) || !candidates.contains(item.rvn())) {
                return RenewAnswer.LOST;
            }
            items.put(new StoredLock(
                    item.name(),
                    item.owner(),
                    item.holder(),
                    newRvn,
                    item.fence(),
                    lease.duration().toMillis()));
            return RenewAnswer.RENEWED;
        }
    }

    @Override
    public ReleaseAnswer release(LeaseRef lease, Duration timeout) {
        synchronized (items) {
            StoredLock item = items.get(lease.name());
            if (!holds(item, lease)) {
                return ReleaseAnswer.NOT_OURS;
            }
            items.put(withoutOwner(item));
            return ReleaseAnswer.RELEASED;
        }
    }

    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        synchronized (items) {
            StoredLock item = items.get(name);
            if (item == null || !owner.equals(item.owner()) || !rvn.equals(item.rvn())) {
                return false;
            }
            items.put(withoutOwner(item));
            return true;
        }
    }

    /** The held check a DynamoDB table of these keys would take, for the caller's own transaction. */
    @Override
    public TransactWriteItem heldCheck(LeaseRef lease) {
        return DynamoDbLockStore.heldCheck(tableName, partitionKey, sortKey, lease);
    }

    /**
     * Checks that the lease holds the item, as the transaction's first item would; the other items have no table
     * to go to here, so they are accepted and not kept.
     */
    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> writes) {
        if (!holds(items.get(lease.name()), lease)) {
            throw TransactionCanceledException.builder()
                    .message("Transaction cancelled: the held check of lock '" + lease.name() + "' failed")
                    .cancellationReasons(CancellationReason.builder()
                            .code("ConditionalCheckFailed")
                            .build())
                    .build();
        }
    }

    /**
     * A table of one region whose keys are the configured ones: what {@link LockTable#verify()} wants. Nothing
     * expires in memory (the items live as long as the JVM), so there is no time to live to check either.
     */
    @Override
    public boolean verifyTable() {
        return false;
    }

    @Override
    public boolean createTableIfMissing() {
        return false; // an in-memory table always exists
    }

    private static boolean holds(@Nullable StoredLock item, LeaseRef lease) {
        return Protocol.heldBy(item, lease.owner(), lease.fencingToken());
    }

    private static StoredLock withoutOwner(StoredLock item) {
        return new StoredLock(item.name(), null, null, item.rvn(), item.fence(), item.leaseMs());
    }
}
