package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockTable#inMemory}: which tables share locks, and the argument checks of a locked run. No engine. */
class InMemoryLockTableTest {

    private static final Duration LEASE = Duration.ofSeconds(5);

    private final String tableName = "InMemory-" + UUID.randomUUID().toString().substring(0, 8);
    private final LockTable first = LockTable.inMemory(tableName).build();
    private final LockTable second = LockTable.inMemory(tableName).sortKey("sk").build();
    private final LockTable elsewhere = LockTable.inMemory(tableName + "-other").build();

    @AfterEach
    void close() {
        first.close();
        second.close();
        elsewhere.close();
    }

    @Test
    void tablesOfOneNameShareTheirLocksAndTablesOfAnotherDoNot() {
        first.tryAcquire("job", LEASE).orElseThrow();

        assertThat(second.tryAcquire("job", LEASE)).isEmpty();
        assertThat(elsewhere.tryAcquire("job", LEASE)).isPresent();
    }

    /**
     * A listener told of a lease finds it among the table's held leases: the lease is kept before it is announced.
     * With a manual clock the listener runs on the acquiring thread, so an announcement that came before the keeping
     * would be seen every time.
     */
    @Test
    void aListenerToldOfALeaseFindsItAmongTheHeldLeases() {
        AtomicReference<LockTable> table = new AtomicReference<>();
        List<Boolean> seen = new CopyOnWriteArrayList<>();
        LockTableListener listener = new LockTableListener() {
            @Override
            public void onAcquired(Lease lease, boolean tookOver) {
                seen.add(table.get().heldLeases().contains(lease));
            }
        };
        try (LockTable manual = LockTable.inMemory(tableName + "-manual")
                .clock(new ManualLockClock())
                .listener(listener)
                .build()) {
            table.set(manual);

            manual.tryAcquire("job", LEASE).orElseThrow();

            assertThat(seen).containsExactly(true);
        }
    }

    @Test
    void verifyAcceptsTheKeysItWasGiven() {
        first.verify();
        second.verify();
        assertThat(second.sortKey()).contains("sk");
        assertThat(first.partitionKey()).isEqualTo("pk");
    }

    @Test
    void aLockedRunRefusesANegativeMinimumHoldNamingTheLockAndNullWork() {
        assertThatThrownBy(() -> first.runLocked("job", LEASE, Duration.ofSeconds(-1), () -> "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minHold of lock 'job'");
        assertThatThrownBy(() -> first.runLocked("job", LEASE, Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> first.runLocked("", LEASE, Duration.ZERO, () -> "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> first.runLocked("job", Duration.ofMillis(10), Duration.ZERO, () -> "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseDuration of lock 'job'");
    }

    @Test
    void aBindingMakesALeaseCurrentOnItsThreadUntilClosedAndRestoresTheOneBefore() throws Exception {
        Lease outer = first.tryAcquire("outer", LEASE).orElseThrow();
        Lease inner = first.tryAcquire("inner", LEASE).orElseThrow();

        Lease.Binding outerBinding = outer.bindAsCurrent();
        Lease.Binding innerBinding = inner.bindAsCurrent();
        assertThat(Lease.current()).contains(inner);
        java.util.concurrent.CompletableFuture<java.util.Optional<Lease>> elsewhere =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    innerBinding.close(); // another thread: nothing happens
                    return Lease.current();
                });
        assertThat(elsewhere.get()).isEmpty();
        assertThat(Lease.current()).contains(inner);

        innerBinding.close();
        assertThat(Lease.current()).contains(outer);
        innerBinding.close(); // twice: nothing happens
        assertThat(Lease.current()).contains(outer);
        outerBinding.close();
        assertThat(Lease.current()).isEmpty();

        Lease.Binding first = outer.bindAsCurrent();
        Lease.Binding second = inner.bindAsCurrent();
        first.close(); // out of order: only itself is unbound
        assertThat(Lease.current()).contains(inner);
        second.close();
        assertThat(Lease.current()).isEmpty();
    }

    @Test
    void aFencedTransactionChecksTheLeaseAndFailsOnceItIsLost() {
        Lease lease = first.tryAcquire("job", LEASE).orElseThrow();
        lease.transactWrite(); // held: accepted

        lease.release();

        assertThatThrownBy(lease::transactWrite).isInstanceOf(LeaseLostException.class);
    }

    /**
     * What a user's unit test does with {@link ManualLockClock}: each simulated process has a clock of its own; the
     * one whose clock stands still renews nothing, and the other takes the lock over after a lease of virtual time,
     * with the next fencing token, while the frozen holder's lease has ended by its own clock once it moves again.
     */
    @Test
    void aFrozenProcessIsTakenOverAfterALeaseOfVirtualTimeWithTheNextToken() throws Exception {
        ManualLockClock frozenClock = new ManualLockClock();
        ManualLockClock survivorClock = new ManualLockClock(-5);
        String shared = tableName + "-virtual";
        try (LockTable frozen = LockTable.inMemory(shared).clock(frozenClock).build();
                LockTable survivor =
                        LockTable.inMemory(shared).clock(survivorClock).build()) {
            Lease old = frozen.tryAcquire("sweeper", LEASE).orElseThrow();
            assertThat(survivor.tryAcquire("sweeper", LEASE)).isEmpty();

            survivorClock.advance(LEASE.minusMillis(1));
            assertThat(survivor.tryAcquire("sweeper", LEASE))
                    .as("one millisecond before a whole lease")
                    .isEmpty();
            survivorClock.advance(Duration.ofMillis(1));
            Lease taken = survivor.tryAcquire("sweeper", LEASE).orElseThrow();

            assertThat(taken.fencingToken()).isEqualTo(old.fencingToken() + 1);
            assertThat(old.isHeld()).as("by the frozen clock, not moved yet").isTrue();
            frozenClock.advance(LEASE);
            assertThat(old.isHeld()).isFalse();
            assertThat(old.whenEnded().get()).isIn(LeaseEnd.LOST, LeaseEnd.EXPIRED);
            assertThat(taken.isHeld())
                    .as("the old holder's renewal or release disturbs nobody")
                    .isTrue();
            assertThat(survivor.read("sweeper").orElseThrow().owner()).contains(taken.owner());
        }
    }

    /** A lease renews in virtual time as in real time: held for many leases while its clock moves on. */
    @Test
    void aLeaseRenewsAsItsManualClockMovesAndRunLockedBindsItAsCurrent() throws Exception {
        ManualLockClock clock = new ManualLockClock();
        try (LockTable table =
                LockTable.inMemory(tableName + "-renews").clock(clock).build()) {
            Lease lease = table.tryAcquire("job", LEASE).orElseThrow();
            for (int i = 0; i < 10; i++) {
                clock.advance(LEASE.dividedBy(2));
            }
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.remaining()).isPositive();

            assertThat(table.runLocked(
                            "report",
                            LEASE,
                            Duration.ZERO,
                            () -> Lease.current().orElseThrow().name()))
                    .contains("report");
        }
    }

    @Test
    void releaseAfterKeepsTheLeaseRenewedForTheDelayOnTheTablesClockThenReleasesIt() {
        ManualLockClock clock = new ManualLockClock();
        try (LockTable table =
                LockTable.inMemory(tableName + "-release-after").clock(clock).build()) {
            Lease lease = table.tryAcquire("hold", LEASE).orElseThrow();
            lease.releaseAfter(LEASE.multipliedBy(2));

            clock.advance(LEASE);
            clock.advance(LEASE.minusMillis(1));
            assertThat(lease.isHeld()).as("kept and renewed for two leases").isTrue();
            clock.advance(Duration.ofMillis(1));
            assertThat(lease.end()).contains(LeaseEnd.RELEASED);
            assertThat(table.tryAcquire("hold", LEASE)).isPresent();

            Lease now = table.tryAcquire("now", LEASE).orElseThrow();
            now.releaseAfter(Duration.ofSeconds(-1));
            assertThat(now.end()).as("a delay of zero or less releases at once").contains(LeaseEnd.RELEASED);
            assertThatThrownBy(() -> now.releaseAfter(null)).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void aManualClockMovesForwardOnly() {
        ManualLockClock clock = new ManualLockClock();
        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("forward only");
        assertThatThrownBy(() -> clock.jump(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        clock.jump(Duration.ofSeconds(2));
        assertThat(clock.nanoTime()).isEqualTo(Duration.ofSeconds(2).toNanos());
    }

    @Test
    void anEndHookRunsOnceOnTheThreadThatEndsTheLeaseAndAtOnceWhenTheLeaseHadEnded() {
        Lease lease = first.tryAcquire("hooked", LEASE).orElseThrow();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        lease.onEnd(() -> ranOn.add(Thread.currentThread()));
        assertThat(ranOn).isEmpty();

        lease.release();
        lease.release();

        assertThat(ranOn).containsExactly(Thread.currentThread());
        AtomicInteger late = new AtomicInteger();
        lease.onEnd(late::incrementAndGet);
        assertThat(late).hasValue(1);
        assertThat(ranOn).hasSize(1);
    }
}
