package io.locktable;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A lock item as read from the table, checked to be a lock item.
 *
 * @param owner the owner, or null when the lock is free
 * @param holder the readable holder, or null
 * @param rvn the record version, or null on a free item that never had one
 * @param fence the fencing token, 0 when never acquired
 * @param leaseMs the lease of the last holder in milliseconds, 0 when unknown
 */
record StoredLock(
        String name,
        @Nullable String owner,
        @Nullable String holder,
        @Nullable String rvn,
        long fence,
        long leaseMs) {

    boolean isHeld() {
        return owner != null;
    }

    LockRecord toRecord() {
        return new LockRecord(
                name,
                Optional.ofNullable(owner),
                Optional.ofNullable(holder),
                fence,
                rvn == null ? "" : rvn,
                Duration.ofMillis(leaseMs));
    }

    /**
     * Reads a lock item, refusing anything else.
     *
     * @return the lock, or null when there is no item
     * @throws LockItemConflictException when the item is not a lock item
     */
    static @Nullable StoredLock parse(String name, String tableName, @Nullable Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return null;
        }
        AttributeValue type = item.get(LockRequests.TYPE);
        if (type == null || !LockRequests.LOCK_TYPE.equals(type.s())) {
            throw new LockItemConflictException(
                    name, tableName, type == null ? "it has no _type attribute" : "its _type is not LOCK");
        }
        String owner = string(item, LockRequests.OWNER, name, tableName);
        String rvn = string(item, LockRequests.RVN, name, tableName);
        Long fence = number(item, LockRequests.FENCE, name, tableName);
        Long leaseMs = number(item, LockRequests.LEASE_MS, name, tableName);
        if (owner != null && (rvn == null || fence == null || leaseMs == null)) {
            throw new LockItemConflictException(
                    name, tableName, "it has an owner but lacks one of rvn, fence and leaseMs");
        }
        if (owner != null && !LockTable.isLeaseDuration(Duration.ofMillis(leaseMs))) {
            // zero would mean an instant takeover, a huge value an overflow: neither is a lease LockTable writes
            throw new LockItemConflictException(
                    name,
                    tableName,
                    "its leaseMs " + leaseMs + " is outside " + Timing.MIN_LEASE.toMillis() + " to "
                            + Timing.MAX_LEASE.toMillis() + " ms");
        }
        String holder = item.containsKey(LockRequests.HOLDER)
                ? item.get(LockRequests.HOLDER).s()
                : null;
        return new StoredLock(name, owner, holder, rvn, fence == null ? 0 : fence, leaseMs == null ? 0 : leaseMs);
    }

    private static @Nullable String string(
            Map<String, AttributeValue> item, String attribute, String name, String table) {
        AttributeValue value = item.get(attribute);
        if (value == null) {
            return null;
        }
        if (value.s() == null) {
            throw new LockItemConflictException(name, table, "its " + attribute + " is not a string");
        }
        return value.s();
    }

    private static @Nullable Long number(
            Map<String, AttributeValue> item, String attribute, String name, String table) {
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
        throw new LockItemConflictException(name, table, "its " + attribute + " is not a whole number");
    }
}
