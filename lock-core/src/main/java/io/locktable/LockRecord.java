package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A lock item as stored in the table, read with {@link LockTable#read(String)}.
 *
 * @param name the name of the lock
 * @param owner the owner id of the current holder, empty when the lock is free or released
 * @param holder the readable name of the holder when its {@link LockTableOptions} set one
 * @param fencingToken the fencing token of the last acquisition (0 if never acquired)
 * @param recordVersion the record version, which changes at every acquire and renewal
 * @param leaseDuration the lease duration the last holder asked for
 */
public record LockRecord(
        String name,
        Optional<String> owner,
        Optional<String> holder,
        long fencingToken,
        String recordVersion,
        Duration leaseDuration) {

    /** Checks that no component is null. */
    public LockRecord {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(recordVersion, "recordVersion");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
    }

    /**
     * Whether the item names a holder (which may have crashed: only a table watching it for a lease can tell).
     *
     * @return true when the item has an owner
     */
    public boolean isHeld() {
        return owner.isPresent();
    }
}
