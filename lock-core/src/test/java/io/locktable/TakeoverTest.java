package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * When a waiting contender takes a lock over, in memory: after a whole lease it watched a crashed holder, never from a
 * live one. The requests a waiter sends are in {@link TakeoverRequestsTest}, over an engine.
 */
class TakeoverTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    /** A waiting contender polls every third of the holder's lease. */
    private static final Duration POLL = LEASE.dividedBy(3);
    /** Room for scheduling and round trips on a loaded machine. */
    private static final Duration MARGIN = Duration.ofMillis(1500);

    @AutoClose
    private final MemoryTables tables = new MemoryTables("Takeover");

    /**
     * A process that takes its locks and then crashes: its clock never moves again, so it never renews (over an engine,
     * the tests closed its client instead).
     */
    private LockTable crashedProcess() {
        return tables.add(builder -> builder.clock(new ManualLockClock()));
    }

    @Test
    void aHolderThatStopsRenewingIsTakenOverAfterOneLeaseWithAHigherToken() throws Exception {
        LockTable crashed = crashedProcess();
        LockTable waiting = tables.add();
        String name = Contenders.lockName();
        Lease old = crashed.tryAcquire(name, LEASE).orElseThrow();

        long start = System.nanoTime();
        Lease lease = waiting.acquire(name, LEASE);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took)
                .isGreaterThanOrEqualTo(LEASE)
                .isLessThan(LEASE.plus(POLL).plus(MARGIN));
        assertThat(lease.fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(lease.tookOver()).isTrue();
        assertThat(tables.ownerOf(name)).startsWith(waiting.owner() + ".");
    }

    @Test
    void aLiveHolderIsNeverTakenOver() throws Exception {
        LockTable holder = tables.add();
        LockTable waiting = tables.add();
        String name = Contenders.lockName();
        Lease held = holder.tryAcquire(name, LEASE).orElseThrow();

        assertThatThrownBy(() -> waiting.acquire(name, LEASE, LEASE.multipliedBy(3)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(name);

        assertThat(held.isHeld()).isTrue();
        assertThat(held.whenEnded()).isNotDone();
        assertThat(tables.ownerOf(name)).startsWith(holder.owner() + ".");
        assertThat(tables.item(name).fence()).isEqualTo(1);
    }

    @Test
    void aFreshLockTableNeverTakesOverALockItHasNotWatchedForAWholeLease() throws Exception {
        LockTable crashed = crashedProcess();
        String name = Contenders.lockName();
        crashed.tryAcquire(name, LEASE).orElseThrow();
        Thread.sleep(LEASE.plus(POLL).toMillis()); // the holder is long due, but no one has watched it

        LockTable fresh = tables.add();
        assertThat(fresh.tryAcquire(name, LEASE)).isEmpty();
        LockTable another = tables.add();
        assertThat(another.tryAcquire(name, LEASE)).isEmpty();
        Thread.sleep(LEASE.toMillis() / 2);
        assertThat(fresh.tryAcquire(name, LEASE))
                .as("watched for half a lease only")
                .isEmpty();

        Thread.sleep(LEASE.toMillis() / 2 + 200);
        Lease lease = fresh.tryAcquire(name, LEASE).orElseThrow();
        assertThat(lease.fencingToken()).isEqualTo(2);
        assertThat(lease.tookOver()).isTrue();
    }

    @Test
    void aReleasedLockIsTakenByAWaitingContenderWithinOnePoll() throws Exception {
        LockTable holder = tables.add();
        LockTable waiting = tables.add();
        String name = Contenders.lockName();
        Lease held = holder.tryAcquire(name, LEASE).orElseThrow();
        CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
            try {
                return waiting.acquire(name, LEASE);
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

    @Test
    void interruptingAWaitingAcquireEndsItPromptly() throws Exception {
        LockTable holder = tables.add();
        LockTable waiting = tables.add();
        String name = Contenders.lockName();
        holder.tryAcquire(name, Duration.ofSeconds(30)).orElseThrow();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                waiting.acquire(name, LEASE);
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
        LockTable crashed = crashedProcess();
        String name = Contenders.lockName();
        crashed.tryAcquire(name, LEASE).orElseThrow();

        LockTable shortLived = tables.add();
        Lease lease = shortLived.acquire(name, LEASE, LEASE.plus(POLL).plus(MARGIN));

        assertThat(lease.fencingToken()).isEqualTo(2);
    }
}
