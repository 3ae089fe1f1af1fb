package io.locktable;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * In-memory lock tables for one test, all of one name of their own: each stands for a separate process over the same
 * table (as {@link Contenders} over an engine). Closes them all at the end.
 */
final class MemoryTables implements AutoCloseable {

    private final String tableName;
    private final List<LockTable> opened = new ArrayList<>();

    /** Tables of a fresh name that starts with {@code prefix}, shared with no other test. */
    MemoryTables(String prefix) {
        this.tableName = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    String tableName() {
        return tableName;
    }

    LockTable add() {
        return add(builder -> {});
    }

    LockTable add(Consumer<LockTable.Builder> customizer) {
        LockTable.Builder builder = LockTable.inMemory(tableName);
        customizer.accept(builder);
        LockTable locks = builder.build();
        opened.add(locks);
        return locks;
    }

    /** The stored item of a lock, as a test would read it from the engine; null when there is none. */
    LockStore.@Nullable StoredLock item(String name) {
        return MemoryLockStore.Items.named(tableName).get(name);
    }

    /** The owner in the stored item of a lock; null when there is no item or it has no owner. */
    @Nullable
    String ownerOf(String name) {
        LockStore.StoredLock item = item(name);
        return item == null ? null : item.owner();
    }

    /** Deletes a lock item behind its holder's back, as an operator, a restore or a time to live would. */
    void deleteItem(String name) {
        MemoryLockStore.Items.named(tableName).delete(name);
    }

    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }
}
