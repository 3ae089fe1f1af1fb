package io.locktable.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockClock;
import io.locktable.LockTable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Lock} semantics of the registry's locks, over in-memory lock tables (no engine): two tables of one name
 * contend like two instances. Short leases, bounds with margin.
 */
class LockSemanticsTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration BOUND = Duration.ofSeconds(15);

    /**
     * A clock that moves only when told and whose timer never fires: a table on it never renews, as a process that
     * froze, and its leases end when the test moves it past them.
     */
    static final class ManualClock implements LockClock {
        private final AtomicLong now = new AtomicLong();

        void advance(Duration by) {
            now.addAndGet(by.toNanos());
        }

        @Override
        public long nanoTime() {
            return now.get();
        }

        @Override
        public Instant instant() {
            return Instant.now();
        }

        @Override
        public void sleep(long nanos) {
            now.addAndGet(Math.max(0, nanos));
        }

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            return new CompletableFuture<Void>(); // never runs
        }
    }

    private final String table = "si-" + UUID.randomUUID();
    private final String name = "lock-" + UUID.randomUUID();
    private final List<LockTable> tables = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        threads.shutdownNow();
        tables.forEach(LockTable::close);
    }

    private LockTableLockRegistry instance() {
        LockTable locks = LockTable.inMemory(table).build();
        tables.add(locks);
        return new LockTableLockRegistry(locks, LEASE);
    }

    private LockTableLockRegistry frozenInstance(ManualClock clock) {
        LockTable locks = LockTable.inMemory(table).clock(clock).build();
        tables.add(locks);
        return new LockTableLockRegistry(locks, LEASE);
    }

    /** Whether the lock can be taken from another instance right now (taken and released again if so). */
    private static boolean free(LockTableLockRegistry other, String name) {
        Lock lock = other.obtain(name);
        if (lock.tryLock()) {
            lock.unlock();
            return true;
        }
        return false;
    }

    /** Takes the lock on a thread of the test's pool that never unlocks it, as a process that crashed. */
    private boolean abandon(LockTableLockRegistry crashed) throws Exception {
        return threads.submit(() -> crashed.obtain(name).tryLock()).get(10, TimeUnit.SECONDS);
    }

    @Test
    void obtainReturnsTheSameLockForAName() {
        LockTableLockRegistry registry = instance();

        assertThat(registry.obtain(name)).isSameAs(registry.obtain(name));
        assertThat(registry.obtain(name)).isNotSameAs(registry.obtain(name + "-2"));
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strings");
        assertThatThrownBy(() -> registry.obtain("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leaseOutsideTheRangeIsRefused() {
        LockTable locks = LockTable.inMemory(table).build();
        tables.add(locks);

        assertThatThrownBy(() -> new LockTableLockRegistry(locks, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0.1S")
                .hasMessageContaining("PT1S to PT24H");
        assertThatThrownBy(() -> new LockTableLockRegistry(locks).obtain(name).lock(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reentrantForTheHoldingThreadOverOneLease() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock lock = a.obtain(name);

        lock.lock();
        Lease first = Lease.current().orElseThrow();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.lockInterruptibly();
        assertThat(Lease.current()).as("one lease for every hold").containsSame(first);

        for (int i = 0; i < 3; i++) {
            lock.unlock();
            assertThat(free(b, name)).as("held until the last unlock").isFalse();
            assertThat(first.isHeld()).isTrue();
        }
        lock.unlock();

        assertThat(first.isHeld()).as("released by the last unlock").isFalse();
        assertThat(Lease.current()).as("unbound").isEmpty();
        assertThat(free(b, name)).isTrue();
    }

    @Test
    void anotherRegistryOverTheSameTableIsAContender() {
        LockTable locks = LockTable.inMemory(table).build();
        tables.add(locks);
        LockTableLockRegistry one = new LockTableLockRegistry(locks, LEASE);
        LockTableLockRegistry two = new LockTableLockRegistry(locks, LEASE);

        Lock lock = one.obtain(name);
        assertThat(lock.tryLock()).isTrue();
        assertThat(two.obtain(name).tryLock())
                .as("LockTable itself is not reentrant")
                .isFalse();
        lock.unlock();
    }

    @Test
    void onlyTheHoldingThreadMayUnlock() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock lock = a.obtain(name);
        lock.lock();

        Future<?> other = threads.submit(lock::unlock);

        assertThatThrownBy(other::get)
                .hasCauseInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
        assertThat(free(b, name)).as("still held").isFalse();
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void threadsOfOneProcessQueueOnTheLock() throws Exception {
        LockTableLockRegistry a = instance();
        Lock lock = a.obtain(name);
        lock.lock();

        Future<Boolean> tryOnce = threads.submit(() -> lock.tryLock());
        assertThat(tryOnce.get(10, TimeUnit.SECONDS)).isFalse();
        CountDownLatch taken = new CountDownLatch(1);
        Future<?> waiter = threads.submit(() -> {
            lock.lock();
            taken.countDown();
            lock.unlock();
        });
        assertThat(taken.await(300, TimeUnit.MILLISECONDS)).isFalse();

        lock.unlock();

        assertThat(taken.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        waiter.get(10, TimeUnit.SECONDS);
    }

    @Test
    void tryLockWithATimeWaitsAboutThatLongForALiveHolder() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock held = a.obtain(name);
        held.lock();
        Lock lock = b.obtain(name);

        long start = System.nanoTime();
        boolean taken = lock.tryLock(1500, TimeUnit.MILLISECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        assertThat(taken).as("the holder renews its lease").isFalse();
        assertThat(waited).isBetween(Duration.ofMillis(1400), Duration.ofSeconds(5));
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isFalse();
        held.unlock();
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    @Test
    void tryLockWithATimeGetsTheLockWhenTheHolderUnlocks() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock held = a.obtain(name);
        held.lock();

        Future<Boolean> waiting = threads.submit(() -> b.obtain(name).tryLock(10, TimeUnit.SECONDS));
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        held.unlock();

        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tryLockTakesOverAnAbandonedLock() throws Exception {
        ManualClock frozen = new ManualClock();
        LockTableLockRegistry crashed = frozenInstance(frozen);
        LockTableLockRegistry b = instance();
        assertThat(abandon(crashed)).isTrue(); // never renewed, never unlocked
        Lock lock = b.obtain(name);

        long start = System.nanoTime();
        boolean taken = lock.tryLock(LEASE.multipliedBy(5).toMillis(), TimeUnit.MILLISECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        assertThat(taken).isTrue();
        assertThat(waited).as("after a whole lease unchanged").isBetween(LEASE, LEASE.multipliedBy(4));
        Lease lease = Lease.current().orElseThrow();
        assertThat(lease.tookOver()).isTrue();
        lock.unlock();
    }

    @Test
    void tryLockOnceTakesOverOnceTheHolderWasWatchedForALease() throws Exception {
        ManualClock frozen = new ManualClock();
        LockTableLockRegistry crashed = frozenInstance(frozen);
        LockTableLockRegistry b = instance();
        assertThat(abandon(crashed)).isTrue();
        Lock lock = b.obtain(name);

        assertThat(lock.tryLock()).as("seen held").isFalse();
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .pollInSameThread()
                .until(lock::tryLock);
        lock.unlock();
    }

    @Test
    void lockInterruptiblyEndsItsWaitWhenInterrupted() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock held = a.obtain(name);
        held.lock();
        Lock lock = b.obtain(name);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);

        Future<?> waiting = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            started.countDown();
            lock.lockInterruptibly();
            return null;
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(300);
        waiter.get().interrupt();

        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        held.unlock();
        assertThat(free(a, name)).as("the interrupted wait holds nothing").isTrue();

        Thread.currentThread().interrupt();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).as("the flag was cleared").isFalse();
    }

    @Test
    void lockWaitsThroughAnInterruptAndSetsTheFlagAgain() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock held = a.obtain(name);
        held.lock();
        Lock lock = b.obtain(name);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);

        Future<?> waiting = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            started.countDown();
            lock.lock();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(300);
        waiter.get().interrupt();
        Thread.sleep(300);
        assertThat(waiting).as("still waiting").isNotDone();

        held.unlock();

        waiting.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(interruptedAfter).isTrue();
    }

    @Test
    void newConditionIsRefusedClearly() {
        Lock lock = instance().obtain(name);

        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("Condition");
    }

    @Test
    void theLeaseIsCurrentWhileHeldOnTheHoldingThreadOnly() throws Exception {
        LockTableLockRegistry a = instance();
        Lock lock = a.obtain(name);
        assertThat(Lease.current()).isEmpty();

        lock.lock();

        Lease lease = Lease.current().orElseThrow();
        assertThat(lease.name()).isEqualTo(name);
        assertThat(lease.duration()).isEqualTo(LEASE);
        assertThat(threads.submit(() -> Lease.current().isPresent()).get()).isFalse();
        lock.unlock();
        assertThat(Lease.current()).isEmpty();
    }

    @Test
    void theLeaseRenewsWhileHeldForLongerThanItsDuration() throws Exception {
        LockTableLockRegistry a = instance();
        LockTableLockRegistry b = instance();
        Lock lock = a.obtain(name);
        lock.lock();

        await().during(LEASE.multipliedBy(3)).atMost(BOUND).until(() -> !free(b, name));

        lock.unlock();
        assertThat(free(b, name)).isTrue();
    }

    @Test
    void unlockAfterTheLeaseWasLostTellsAndLeavesTheNewHolderAlone() throws Exception {
        ManualClock clock = new ManualClock();
        LockTableLockRegistry a = frozenInstance(clock);
        LockTableLockRegistry b = instance();
        LockTableLockRegistry c = instance();
        Lock lock = a.obtain(name);
        lock.lock();
        Lock taker = b.obtain(name);
        assertThat(taker.tryLock(LEASE.multipliedBy(5).toMillis(), TimeUnit.MILLISECONDS))
                .as("taken over")
                .isTrue();
        clock.advance(LEASE.multipliedBy(2)); // the paused holder wakes: its lease has ended

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("lost");

        assertThat(free(c, name)).as("the new holder keeps it").isFalse();
        assertThatThrownBy(lock::unlock).as("no longer held").isInstanceOf(IllegalMonitorStateException.class);
        taker.unlock();
        assertThat(free(c, name)).isTrue();
    }

    @Test
    void aLockCallAfterTheLeaseWasLostDropsTheVoidHoldsAndContendsAgain() throws Exception {
        ManualClock clock = new ManualClock();
        LockTableLockRegistry a = frozenInstance(clock);
        LockTableLockRegistry b = instance();
        Lock lock = a.obtain(name);
        lock.lock();
        lock.lock(); // two holds
        Lock taker = b.obtain(name);
        assertThat(taker.tryLock(LEASE.multipliedBy(5).toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        clock.advance(LEASE.multipliedBy(2));

        assertThat(lock.tryLock()).as("the new holder has it").isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

        taker.unlock();
        assertThat(lock.tryLock()).as("free again").isTrue();
        lock.unlock();
    }

    @Test
    void renewLockChecksTheHolderAndItsLease() throws Exception {
        ManualClock clock = new ManualClock();
        LockTableLockRegistry a = frozenInstance(clock);
        Lock lock = a.obtain(name);
        assertThatThrownBy(() -> a.renewLock(name)).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();

        a.renewLock(name);
        a.renewLock(name, Duration.ofSeconds(5));
        assertThatThrownBy(() -> a.renewLock(name, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> threads.submit(() -> a.renewLock(name)).get())
                .hasCauseInstanceOf(IllegalMonitorStateException.class);

        clock.advance(LEASE.multipliedBy(2));
        assertThatThrownBy(() -> a.renewLock(name))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Could not renew lock '" + name + "'");
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void expireUnusedOlderThanForgetsOnlyUnheldLocks() throws Exception {
        LockTableLockRegistry a = instance();
        Lock held = a.obtain(name);
        Lock unused = a.obtain(name + "-2");
        held.lock();
        Thread.sleep(20);

        a.expireUnusedOlderThan(10);

        assertThat(a.obtain(name)).isSameAs(held);
        assertThat(a.obtain(name + "-2")).isNotSameAs(unused);
        held.unlock();
    }
}
