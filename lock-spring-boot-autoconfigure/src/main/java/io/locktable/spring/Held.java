package io.locktable.spring;

import io.locktable.Lease;
import org.jspecify.annotations.Nullable;

/**
 * What a call whose work ends after it returned holds until that work ends: the lock of a {@link LockedRun} call, or
 * a place in a {@link LeaderOnly} leadership's term. Made when the work starts; {@link #end} is called once, when the
 * work completes, fails or is cancelled.
 */
interface Held {

    /** The lease the work runs under: the lock's, or the term's. */
    Lease lease();

    /**
     * Has the work cancelled when the lease is lost (for a lock) or the term ends (for a leadership) before {@link
     * #end}: at once if that happened already. Runs on the lock table's event thread, or on the calling one.
     */
    void onLoss(Runnable cancel);

    /**
     * Ends the hold, once: a lock is released (after the run's minimum hold) and the run's outcome told; a
     * leadership's call leaves its gate. May block on the release's request.
     *
     * @param failure what the work failed with, null when it completed
     */
    void end(@Nullable Throwable failure);
}
