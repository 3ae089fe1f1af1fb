package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * One process's view of a lock table kept in memory, for tests of the protocol's decisions without any engine: the
 * conditions are those of {@link LockRequests}, evaluated on a {@link Table} that several processes share, and the
 * test scripts what the network does to each request of this process ({@link #script}).
 */
final class ScriptedLockStore implements LockStore {

    /** The requests a test can script. */
    enum Op {
        ACQUIRE,
        READ,
        RENEW,
        RELEASE,
        GIVE_BACK
    }

    /** What the network does to one request. */
    sealed interface Fault {}

    /** The request never reaches the table; the caller gets an I/O error. */
    record Lost() implements Fault {}

    /** The table applies the request; its answer is lost and the caller gets an I/O error. */
    record AnswerLost() implements Fault {}

    /** Something happens while the request is on its way, before the table serves it (time passes, say). */
    record Meanwhile(Runnable action) implements Fault {}

    /** The items of one table, shared by every process's store. */
    static final class Table {
        private final Map<String, StoredLock> items = new ConcurrentHashMap<>();

        synchronized StoredLock get(String name) {
            return items.get(name);
        }

        synchronized void put(StoredLock item) {
            items.put(item.name(), item);
        }
    }

    private final Table table;
    private final Map<Op, Deque<Fault>> script = new EnumMap<>(Op.class);
    private final Map<Op, AtomicInteger> sent = new EnumMap<>(Op.class);

    ScriptedLockStore(Table table) {
        this.table = table;
        for (Op op : Op.values()) {
            script.put(op, new ArrayDeque<>());
            sent.put(op, new AtomicInteger());
        }
    }

    /** The next {@code times} requests of {@code op} meet {@code fault}, after those scripted before. */
    synchronized ScriptedLockStore script(Op op, Fault fault, int times) {
        for (int i = 0; i < times; i++) {
            script.get(op).add(fault);
        }
        return this;
    }

    /** How many requests of {@code op} this process sent. */
    int sent(Op op) {
        return sent.get(op).get();
    }

    @Override
    public String tableName() {
        return "Scripted";
    }

    @Override
    public AcquireAnswer acquire(
            String name,
            String seenRvn,
            String owner,
            String rvn,
            Duration lease,
            Instant now,
            long fenceFloor,
            Duration timeout) {
        return serve(Op.ACQUIRE, () -> {
            synchronized (table) {
                StoredLock item = table.get(name);
                boolean free = seenRvn == null && (item == null || item.owner() == null);
                boolean due = seenRvn != null && item != null && seenRvn.equals(item.rvn());
                if (free || due) {
                    StoredLock mine = new StoredLock(
                            name, owner, null, rvn, item == null ? fenceFloor + 1 : item.fence() + 1, lease.toMillis());
                    table.put(mine);
                    return new Granted(mine, false);
                }
                if (item != null && owner.equals(item.owner()) && rvn.equals(item.rvn())) {
                    return new Granted(item, true); // as DynamoDbLockStore reads a retry of its own applied write
                }
                return new Refused(item);
            }
        });
    }

    @Override
    public StoredLock read(String name, Duration timeout) {
        return serve(Op.READ, () -> table.get(name));
    }

    @Override
    public RenewAnswer renew(Lease lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        return serve(Op.RENEW, () -> {
            synchronized (table) {
                StoredLock item = table.get(lease.name());
                if (!holds(item, lease) || !candidates.contains(item.rvn())) {
                    return RenewAnswer.LOST;
                }
                table.put(new StoredLock(
                        item.name(),
                        item.owner(),
                        null,
                        newRvn,
                        item.fence(),
                        lease.duration().toMillis()));
                return RenewAnswer.RENEWED;
            }
        });
    }

    @Override
    public ReleaseAnswer release(Lease lease, Duration timeout) {
        return serve(Op.RELEASE, () -> {
            synchronized (table) {
                StoredLock item = table.get(lease.name());
                if (holds(item, lease)) {
                    table.put(withoutOwner(item));
                    return ReleaseAnswer.RELEASED;
                }
                boolean ownRetry = item != null && item.owner() == null && item.fence() == lease.fencingToken();
                return ownRetry ? ReleaseAnswer.RELEASED : ReleaseAnswer.NOT_OURS;
            }
        });
    }

    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        return serve(Op.GIVE_BACK, () -> {
            synchronized (table) {
                StoredLock item = table.get(name);
                if (item != null && owner.equals(item.owner()) && rvn.equals(item.rvn())) {
                    table.put(withoutOwner(item));
                    return true;
                }
                return false;
            }
        });
    }

    @Override
    public TransactWriteItem heldCheck(Lease lease) {
        return TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName(tableName()).conditionExpression(LockRequests.HELD_CONDITION))
                .build();
    }

    @Override
    public void transactWrite(Lease lease, List<TransactWriteItem> items) {
        if (!holds(table.get(lease.name()), lease)) {
            throw TransactionCanceledException.builder()
                    .message("Transaction cancelled")
                    .cancellationReasons(CancellationReason.builder()
                            .code("ConditionalCheckFailed")
                            .build())
                    .build();
        }
    }

    @Override
    public TableDescription describe() {
        return TableDescription.builder()
                .tableName(tableName())
                .keySchema(KeySchemaElement.builder()
                        .attributeName("pk")
                        .keyType(KeyType.HASH)
                        .build())
                .build();
    }

    private <T> T serve(Op op, Supplier<T> apply) {
        sent.get(op).incrementAndGet();
        Fault fault;
        synchronized (this) {
            fault = script.get(op).poll();
        }
        if (fault instanceof Lost) {
            throw SdkClientException.create("scripted: the request was lost");
        }
        if (fault instanceof Meanwhile meanwhile) {
            meanwhile.action().run();
        }
        T answer = apply.get();
        if (fault instanceof AnswerLost) {
            throw SdkClientException.create("scripted: the answer was lost");
        }
        return answer;
    }

    private static boolean holds(StoredLock item, Lease lease) {
        return item != null && lease.owner().equals(item.owner()) && item.fence() == lease.fencingToken();
    }

    private static StoredLock withoutOwner(StoredLock item) {
        return new StoredLock(item.name(), null, null, item.rvn(), item.fence(), item.leaseMs());
    }
}
