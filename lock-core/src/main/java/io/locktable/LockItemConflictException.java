package io.locktable;

/**
 * The item at a lock's key is not a lock item written by {@link LockTable}, for example an entity of a
 * single-table design whose key happens to be {@code LOCK#<name>}. The library never changes such an item. Also
 * thrown, saying so, when the engine's answers contradict each other about that item (a write's answer shows a
 * foreign item that a strongly consistent read then does not find), as an engine that does not apply conditional
 * writes atomically answers.
 */
public class LockItemConflictException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final String tableName;
    private final String problem;

    /**
     * Creates the exception.
     *
     * @param lockName the name of the lock
     * @param tableName the table that holds the item
     * @param problem what is wrong with the item
     */
    public LockItemConflictException(String lockName, String tableName, String problem) {
        this(
                "The item of lock '" + lockName + "' in table '" + tableName + "' is not a lock item written by"
                        + " LockTable (" + problem + "); it was left unchanged. Use another lock name, or move that"
                        + " item away from the lock's key.",
                lockName,
                tableName,
                problem);
    }

    private LockItemConflictException(String message, String lockName, String tableName, String problem) {
        super(message);
        this.lockName = lockName;
        this.tableName = tableName;
        this.problem = problem;
    }

    /**
     * The engine's answers contradict each other: a write's answer showed a foreign item at the lock's key, but a
     * strongly consistent read right after finds none, or finds a lock item. There is no item to move; the engine
     * does not apply conditional writes atomically (a plain {@code moto_server} under concurrent requests).
     *
     * @param conflict what the write's answer showed
     * @param found what the read found instead: "no item", or "a lock item"
     */
    static LockItemConflictException inconsistentAnswer(LockItemConflictException conflict, String found) {
        return new LockItemConflictException(
                "The DynamoDB engine answered inconsistently about lock '" + conflict.lockName + "' in table '"
                        + conflict.tableName + "': the answer to a conditional write showed an item that is not a"
                        + " lock item (" + conflict.problem + "), but a strongly consistent read right after finds "
                        + found + ". An engine that does not apply conditional writes atomically answers so under"
                        + " concurrent requests (a plain moto_server does; DynamoDB does not), and it can grant one"
                        + " lock twice. Use DynamoDB, or locally LockTable's ./local-engine.sh (moto served one request"
                        + " at a time).",
                conflict.lockName,
                conflict.tableName,
                conflict.problem);
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
