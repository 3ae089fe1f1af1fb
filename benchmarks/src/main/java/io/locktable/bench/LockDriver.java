package io.locktable.bench;

import java.time.Duration;

/**
 * One of the two libraries as the harness sees it: acquire, wait, release. Each driver wraps one instance of the
 * library over one client.
 *
 * @param <H> what the library hands out for a held lock
 */
public interface LockDriver<H> extends AutoCloseable {

    /**
     * The library and its settings, for reports.
     *
     * @return a label
     */
    String label();

    /**
     * Acquires a free lock the way the library's users do for an uncontended lock.
     *
     * @param name the lock
     * @return the held lock, or null if another holder has it
     */
    H tryAcquire(String name);

    /**
     * Acquires a lock, waiting for a holder to release it or to stop renewing it.
     *
     * @param name the lock
     * @param maxWait how long to wait at most
     * @return the held lock, or null if the wait ran out
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    H acquire(String name, Duration maxWait) throws InterruptedException;

    /**
     * Releases a held lock.
     *
     * @param held the held lock
     */
    void release(H held);

    /**
     * Tells whether the library still believes it holds the lock.
     *
     * @param held the held lock
     * @return true while held
     */
    boolean isHeld(H held);

    /** Releases what is held and stops the library's threads; does not close the client. */
    @Override
    void close();
}
