package io.locktable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Leaders of a test, each calling {@link LockTable#runAsLeader} on a thread of its own; {@link #close()} interrupts
 * them and waits for them to end, before the test closes their tables.
 */
final class LeaderThreads implements AutoCloseable {

    private final Duration lease;
    private final List<Thread> threads = new ArrayList<>();

    LeaderThreads(Duration lease) {
        this.lease = lease;
    }

    /** Starts a thread that runs {@code work} as leader of {@code name}; what ends its run is put in {@code ended}. */
    Thread lead(LockTable locks, String name, LeaderWork work, AtomicReference<Throwable> ended) {
        Thread thread = new Thread(
                () -> {
                    try {
                        locks.runAsLeader(name, lease, work);
                    } catch (Throwable t) {
                        ended.set(t);
                    }
                },
                "test-leader-" + locks.owner().substring(0, 8));
        threads.add(thread);
        thread.start();
        return thread;
    }

    @Override
    public void close() throws InterruptedException {
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(5_000);
        }
    }
}
