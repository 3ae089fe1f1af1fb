package io.locktable;

import java.nio.charset.StandardCharsets;

/**
 * The rules for a {@link LockTable}'s table name, key attribute names and lock names. The builder and every method
 * that takes a lock name apply them; they are public for code that wants to say which of its settings is wrong before
 * building anything:
 *
 * <pre>{@code
 * try {
 *     LockTableNames.checkTableName(settings.lockTable());
 * } catch (IllegalArgumentException e) {
 *     throw new IllegalStateException("app.lock-table is not valid: " + e.getMessage(), e);
 * }
 * }</pre>
 */
public final class LockTableNames {

    private static final int MIN_TABLE_NAME_LENGTH = 3;
    private static final int MAX_NAME_LENGTH = 255;
    private static final String TABLE_NAME_CHARACTERS = "[a-zA-Z0-9_.-]+";
    private static final int MAX_KEY_BYTES = 2048;

    private LockTableNames() {}

    /**
     * Checks a table name against DynamoDB's rule: 3 to 255 characters of {@code a-z}, {@code A-Z}, {@code 0-9},
     * {@code _}, {@code -} and {@code .} ({@code "orders.locks-v2"} passes, {@code "my locks"} does not).
     *
     * @param tableName the table name
     * @return the same name
     * @throws IllegalArgumentException if the name is null or breaks the rule, saying the rule and the name
     */
    public static String checkTableName(String tableName) {
        if (tableName == null
                || tableName.length() < MIN_TABLE_NAME_LENGTH
                || tableName.length() > MAX_NAME_LENGTH
                || !tableName.matches(TABLE_NAME_CHARACTERS)) {
            throw new IllegalArgumentException("tableName must be " + MIN_TABLE_NAME_LENGTH + " to " + MAX_NAME_LENGTH
                    + " characters of a-z, A-Z, 0-9, '_', '-' and '.', was '" + tableName + "'");
        }
        return tableName;
    }

    /**
     * Checks a key attribute name: 1 to 255 characters, not blank, and not one of {@link
     * LockTableOptions#RESERVED_ATTRIBUTES} ({@code "pk"} passes, {@code "owner"} does not).
     *
     * @param attribute the attribute name
     * @return the same name
     * @throws IllegalArgumentException if the name is null or breaks the rule, saying which part
     */
    public static String checkKeyAttribute(String attribute) {
        return checkKeyAttribute("key attribute", attribute);
    }

    /**
     * Checks a lock name: not empty, and short enough that its key {@code LOCK#<name>} fits DynamoDB's 2,048 bytes in
     * UTF-8; any character is allowed.
     *
     * @param name the lock name
     * @return the same name
     * @throws IllegalArgumentException if the name is null, empty or too long
     */
    public static String checkLockName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("lock name must not be null or empty");
        }
        int keyBytes = (DynamoDbLockStore.KEY_PREFIX + name).getBytes(StandardCharsets.UTF_8).length;
        if (keyBytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("lock name is too long: its key LOCK#<name> has " + keyBytes
                    + " bytes, DynamoDB allows " + MAX_KEY_BYTES);
        }
        return name;
    }

    /** {@link #checkKeyAttribute(String)}, with a message that names the attribute's role, such as "sortKey". */
    static String checkKeyAttribute(String role, String attribute) {
        if (attribute == null || attribute.isBlank() || attribute.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(
                    role + " must be 1 to " + MAX_NAME_LENGTH + " characters, not blank, was '" + attribute + "'");
        }
        if (LockTableOptions.RESERVED_ATTRIBUTES.contains(attribute)) {
            throw new IllegalArgumentException(role + " '" + attribute + "' is the name of one of the lock item's own"
                    + " attributes " + LockTableOptions.RESERVED_ATTRIBUTES + "; the table's keys need other names");
        }
        return attribute;
    }
}
