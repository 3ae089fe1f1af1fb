package io.locktable.verification;

/** How a client's write of the set is protected from a lease that ended while it worked. */
public enum Variant {
    /** A plain {@code PutItem}: the negative control, which must lose elements under pauses. */
    UNFENCED,
    /** The write in {@code lease.transactWrite}, with the lease's held check: engines with transactions only. */
    HELD_CHECK,
    /**
     * The set item keeps the highest fencing token that touched it: the read raises it to the lease's token, the
     * write is conditional on it being no higher than the lease's.
     */
    FENCING_TOKEN
}
