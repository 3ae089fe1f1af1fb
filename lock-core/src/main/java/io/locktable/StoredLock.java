package io.locktable;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A lock item as a {@link LockStore} answers it: read from DynamoDB and checked to be a lock item ({@link
 * DynamoDbLockStore}), or kept in memory ({@link MemoryLockStore}).
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
}
