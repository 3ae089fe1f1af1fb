package io.locktable;

/**
 * The item at a lock's key is not a lock item written by {@link LockTable}, for example an entity of a
 * single-table design whose key happens to be {@code LOCK#<name>}. The library never changes such an item.
 */
public class LockItemConflictException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final String tableName;

    /**
     * Creates the exception.
     *
     * @param lockName the name of the lock
     * @param tableName the table that holds the item
     * @param problem what is wrong with the item
     */
    public LockItemConflictException(String lockName, String tableName, String problem) {
        super("The item of lock '" + lockName + "' in table '" + tableName + "' is not a lock item written by"
                + " LockTable (" + problem + "); it was left unchanged. Use another lock name or move the item.");
        this.lockName = lockName;
        this.tableName = tableName;
    }

    /** @return the name of the lock */
    public String lockName() {
        return lockName;
    }

    /** @return the table that holds the conflicting item */
    public String tableName() {
        return tableName;
    }
}
