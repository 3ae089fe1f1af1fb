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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

@DynamoDbEngineTest
class TakeoverTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    /** A waiting contender polls every third of the holder's lease. */
    private static final Duration POLL = LEASE.dividedBy(3);
    /** Room for scheduling and round trips on a loaded machine. */
    private static final Duration MARGIN = Duration.ofMillis(1500);

    @AutoClose
    private final Contenders contenders;

    TakeoverTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aHolderThatStopsRenewingIsTakenOverAfterOneLeaseWithAHigherToken() throws Exception {
        Contenders.Contender crashed = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        Lease old = crashed.locks().tryAcquire(name, LEASE).orElseThrow();
        crashed.client().close(); // its renewals fail from now on: as if the process died

        long start = System.nanoTime();
        Lease lease = waiting.locks().acquire(name, LEASE);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took)
                .isGreaterThanOrEqualTo(LEASE)
                .isLessThan(LEASE.plus(POLL).plus(MARGIN));
        assertThat(lease.fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(lease.tookOver()).isTrue();
        assertThat(contenders.item(name).get("owner").s())
                .startsWith(waiting.locks().owner() + ".");
    }

    @Test
    void aLiveHolderIsNeverTakenOver() throws Exception {
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThatThrownBy(() -> waiting.locks().acquire(name, LEASE, LEASE.multipliedBy(3)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(name);

        assertThat(held.isHeld()).isTrue();
        assertThat(held.whenEnded()).isNotDone();
        assertThat(contenders.item(name).get("owner").s())
                .startsWith(holder.locks().owner() + ".");
        assertThat(contenders.item(name).get("fence").n()).isEqualTo("1");
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

    @Test
    void aFreshLockTableNeverTakesOverALockItHasNotWatchedForAWholeLease() throws Exception {
        Contenders.Contender crashed = contenders.add();
        String name = Contenders.lockName();
        crashed.locks().tryAcquire(name, LEASE).orElseThrow();
        crashed.client().close();
        Thread.sleep(LEASE.plus(POLL).toMillis()); // the holder is long due, but no one has watched it

        Contenders.Contender fresh = contenders.add();
        assertThat(fresh.locks().tryAcquire(name, LEASE)).isEmpty();
        Contenders.Contender another = contenders.add();
        assertThat(another.locks().tryAcquire(name, LEASE)).isEmpty();
        Thread.sleep(LEASE.toMillis() / 2);
        assertThat(fresh.locks().tryAcquire(name, LEASE))
                .as("watched for half a lease only")
                .isEmpty();

        Thread.sleep(LEASE.toMillis() / 2 + 200);
        Lease lease = fresh.locks().tryAcquire(name, LEASE).orElseThrow();
        assertThat(lease.fencingToken()).isEqualTo(2);
        assertThat(lease.tookOver()).isTrue();
    }

    @Test
    void aReleasedLockIsTakenByAWaitingContenderWithinOnePoll() throws Exception {
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
            try {
                return waiting.locks().acquire(name, LEASE);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(POLL.toMillis());

        long released = System.nanoTime();
        held.release();
        Lease lease = next.get(10, TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - released);

        assertThat(took).isLessThan(POLL.plus(MARGIN));
        assertThat(lease.fencingToken()).isEqualTo(2);
        assertThat(lease.tookOver()).isFalse();
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

    @Test
    void interruptingAWaitingAcquireEndsItPromptly() throws Exception {
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        holder.locks().tryAcquire(name, Duration.ofSeconds(30)).orElseThrow();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                waiting.locks().acquire(name, LEASE);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        thread.start();
        Thread.sleep(500);

        long interrupted = System.nanoTime();
        thread.interrupt();
        thread.join(5_000);

        assertThat(thread.isAlive()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - interrupted)).isLessThan(Duration.ofSeconds(2));
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    void acquireWithAWaitLongerThanALeaseWaitsOutACrashedHolder() throws Exception {
        Contenders.Contender crashed = contenders.add();
        String name = Contenders.lockName();
        crashed.locks().tryAcquire(name, LEASE).orElseThrow();
        crashed.client().close();

        Contenders.Contender shortLived = contenders.add();
        Lease lease = shortLived.locks().acquire(name, LEASE, LEASE.plus(POLL).plus(MARGIN));

        assertThat(lease.fencingToken()).isEqualTo(2);
    }
}
