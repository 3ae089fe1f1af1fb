package io.locktable;

import java.lang.ref.WeakReference;
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
 * The lock items of a table in this JVM's memory, for {@link LockTable#inMemory}: each request does atomically
 * what the conditional request of {@link DynamoDbLockStore} does, so the protocol cannot tell the difference. No
 * request is ever lost or late here; tests that need those script them around it.
 */
final class MemoryLockStore implements LockStore {

    /** The items of one in-memory table, shared by every lock table of that name in the JVM. */
    static final class Items {
        /**
         * The in-memory tables by name, held weakly: a table's items live while a lock table of that name does (each
         * keeps its store, which keeps them), not until the JVM exits.
         */
        private static final Map<String, WeakReference<Items>> TABLES = new ConcurrentHashMap<>();

        private final Map<String, StoredLock> byName = new ConcurrentHashMap<>();

        /** The items of the in-memory table of that name, made on first use; forgotten once no lock table uses them. */
        static Items named(String tableName) {
            while (true) {
                WeakReference<Items> known = TABLES.get(tableName);
                Items items = known == null ? null : known.get();
                if (items != null) {
                    return items;
                }
                Items made = new Items();
                boolean added = known == null
                        ? TABLES.putIfAbsent(tableName, new WeakReference<>(made)) == null
                        : TABLES.replace(tableName, known, new WeakReference<>(made));
                if (added) {
                    TABLES.values().removeIf(reference -> reference.get() == null); // those no lock table uses
                    return made;
                }
            }
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
    public AcquireAnswer acquire(AcquireRequest request) {
        String seenRvn = request.seenRvn();
        synchronized (items) {
            StoredLock item = items.get(request.name());
            boolean free = seenRvn == null && (item == null || item.owner() == null);
            boolean due = seenRvn != null && item != null && seenRvn.equals(item.rvn());
            if (!free && !due) {
                return new Refused(item);
            }
            long fence = Protocol.nextFence(item, request.fenceFloor());
            StoredLock mine = new StoredLock(
                    request.name(),
                    request.owner(),
                    holder,
                    request.rvn(),
                    fence,
                    request.lease().toMillis());
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

    /** Checks the held check only: the other items have no table to go to here, so they are not kept. */
    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> writes, boolean release) {
        synchronized (items) {
            StoredLock item = items.get(lease.name());
            if (!holds(item, lease)) {
                throw TransactionCanceledException.builder()
                        .message("Transaction cancelled: the held check of lock '" + lease.name() + "' failed")
                        .cancellationReasons(CancellationReason.builder()
                                .code("ConditionalCheckFailed")
                                .build())
                        .build();
            }
            if (release) {
                items.put(withoutOwner(item));
            }
        }
    }

    /** A table of one region with the configured keys; nothing expires in memory, so no time to live either. */
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
