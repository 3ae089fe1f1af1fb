package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * One process's view of an in-memory lock table, for tests of the protocol's decisions without any engine: the
 * items and what each request does to them are {@link MemoryLockStore}'s (the conditions of {@link DynamoDbLockStore}),
 * shared by every process's store over the same {@link MemoryLockStore.Items}, and the test scripts what the network
 * does to each request of this process ({@link #script}).
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

    /** Something happens while the request is on its way; then the table applies it and its answer is lost. */
    record MeanwhileThenAnswerLost(Runnable action) implements Fault {}

    /**
     * The caller gives up on the request (an I/O error) while it is still on its way: the table applies it only
     * after it served this process's next request.
     */
    record Late() implements Fault {}

    private static final String TABLE = "Scripted";

    private final MemoryLockStore table;
    private final Map<Op, Deque<Fault>> script = new EnumMap<>(Op.class);
    private final Map<Op, AtomicInteger> sent = new EnumMap<>(Op.class);
    /** A request the caller gave up on, applied after the next one is served. */
    private @Nullable Runnable late;

    ScriptedLockStore(MemoryLockStore.Items items) {
        LockTableOptions options = LockTableOptions.defaults();
        this.table = new MemoryLockStore(TABLE, "pk", null, items, options);
        for (Op op : Op.values()) {
            script.put(op, new ArrayDeque<>());
            sent.put(op, new AtomicInteger());
        }
    }

    /** A store over items of its own, for a test with one process. */
    ScriptedLockStore() {
        this(new MemoryLockStore.Items());
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
        return TABLE;
    }

    @Override
    public AcquireAnswer acquire(AcquireRequest request) {
        return serve(Op.ACQUIRE, () -> table.acquire(request));
    }

    @Override
    public @Nullable StoredLock read(String name, Duration timeout) {
        return serve(Op.READ, () -> table.read(name, timeout));
    }

    @Override
    public RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        return serve(Op.RENEW, () -> table.renew(lease, candidates, newRvn, timeout, now));
    }

    @Override
    public ReleaseAnswer release(LeaseRef lease, Duration timeout) {
        return serve(Op.RELEASE, () -> table.release(lease, timeout));
    }

    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        return serve(Op.GIVE_BACK, () -> table.giveBack(name, owner, rvn, timeout));
    }

    @Override
    public TransactWriteItem heldCheck(LeaseRef lease) {
        return table.heldCheck(lease);
    }

    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> items, boolean release) {
        table.transactWrite(lease, items, release);
    }

    @Override
    public boolean verifyTable() {
        return table.verifyTable();
    }

    @Override
    public boolean createTableIfMissing() {
        return table.createTableIfMissing();
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
        if (fault instanceof Late) {
            synchronized (this) {
                late = apply::get;
            }
            throw SdkClientException.create("scripted: the client gave up; the request is still on its way");
        }
        if (fault instanceof Meanwhile meanwhile) {
            meanwhile.action().run();
        }
        if (fault instanceof MeanwhileThenAnswerLost meanwhile) {
            meanwhile.action().run();
        }
        T answer = apply.get();
        Runnable landing;
        synchronized (this) {
            landing = late;
            late = null;
        }
        if (landing != null) {
            landing.run(); // the request given up on lands after this one
        }
        if (fault instanceof AnswerLost || fault instanceof MeanwhileThenAnswerLost) {
            throw SdkClientException.create("scripted: the answer was lost");
        }
        return answer;
    }
}
