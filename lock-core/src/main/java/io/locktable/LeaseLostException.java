package io.locktable;

import org.jspecify.annotations.Nullable;

/**
 * A write fenced by a {@link Lease} was refused because the lease is no longer held: it was released, lost to
 * another holder, or ran out. Nothing of the write was applied.
 */
public class LeaseLostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long fencingToken;

    /**
     * Creates the exception.
     *
     * @param lockName the name of the lock
     * @param fencingToken the fencing token of the lease that is no longer held
     * @param detail what showed the loss
     * @param cause the error that showed it, or null
     */
    public LeaseLostException(String lockName, long fencingToken, String detail, @Nullable Throwable cause) {
        super(
                "The lease of lock '" + lockName + "' (fencing token " + fencingToken + ") is no longer held: "
                        + detail,
                cause);
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    /** @return the name of the lock */
    public String lockName() {
        return lockName;
    }

    /** @return the fencing token of the lease that was lost */
    public long fencingToken() {
        return fencingToken;
    }
}
