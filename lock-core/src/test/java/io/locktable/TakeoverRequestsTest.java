package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The requests of a contender waiting for a lock, over an engine: reads while the holder renews, and one write when
 * its own table releases the lock. When it takes over is in {@link TakeoverTest}, in memory.
 */
@DynamoDbEngineTest
class TakeoverRequestsTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    /** A waiting contender polls every third of the holder's lease. */
    private static final Duration POLL = LEASE.dividedBy(3);

    @AutoClose
    private final Contenders contenders;

    TakeoverRequestsTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aWaitingContenderSendsOnlyReadsWhileTheHolderRenews() throws Exception {
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        holder.locks().tryAcquire(name, LEASE).orElseThrow();
        waiting.requests().clear();

        Duration wait = LEASE.multipliedBy(3);
        assertThatThrownBy(() -> waiting.locks().acquire(name, LEASE, wait)).isInstanceOf(TimeoutException.class);

        // the first attempt writes (it has not seen the lock held), and reads when the engine returns no item
        assertThat(waiting.requests().operations().get(0)).isEqualTo("UpdateItem");
        assertThat(waiting.requests()
                        .operations()
                        .subList(1, waiting.requests().operations().size()))
                .isNotEmpty()
                .containsOnly("GetItem");
        // one read every third of the lease at most, over the wait, plus the fallback read of the first attempt
        long maxReads = wait.toMillis() / POLL.toMillis() + 2;
        assertThat(waiting.requests().count("GetItem")).isBetween(3L, maxReads);
        // the holder renews every third of its lease
        assertThat(holder.requests().count("UpdateItem")).isGreaterThanOrEqualTo(1 + 6);
    }

    /**
     * Threads of one lock table waiting for a lock another of its threads holds: a release wakes the longest waiter
     * at once, and it takes the lock with one write, not at its next poll (a third of the 30 s lease here).
     */
    @Test
    void aLockReleasedByThisTableIsHandedToItsOwnWaiterAtOnceWithOneWrite() throws Exception {
        Contenders.Contender table = contenders.add();
        String name = Contenders.lockName();
        Duration lease = Duration.ofSeconds(30);
        Lease held = table.locks().tryAcquire(name, lease).orElseThrow();
        ExecutorService waiters = Executors.newFixedThreadPool(2);
        try {
            List<Future<Lease>> waiting = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                waiting.add(waiters.submit(() -> table.locks().acquire(name, lease)));
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() ->
                            table.requests().count("GetItem") + table.requests().count("UpdateItem")
                                    >= 3); // both waiters saw it held (on engines without returned items, read it too)
            Thread.sleep(200);
            table.requests().clear();

            held.release();
            Lease first = waitForOne(waiting);

            assertThat(first.fencingToken()).isEqualTo(held.fencingToken() + 1);
            // the release, then the woken waiter's one write; the other still sleeps until its poll
            assertThat(table.requests().operations()).containsExactly("UpdateItem", "UpdateItem");
            first.release();
            Lease second = waitForOne(waiting);
            assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
            second.release();
        } finally {
            waiters.shutdownNow();
        }
    }

    /** Waits (well under the waiters' poll) for the next waiter to get the lock, and takes it off the list. */
    private static Lease waitForOne(List<Future<Lease>> waiting) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (Future<Lease> future : waiting) {
                if (future.isDone()) {
                    waiting.remove(future);
                    return future.get();
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no waiter got the lock within 3 s of its release");
    }
}
