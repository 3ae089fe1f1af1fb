package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One task on the clock, however many leases a table keeps; each lease renewed once per period. No engine. */
class LeaseTimerTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aThousandLeasesKeepOneTaskOnTheClockAndEachIsRenewedEveryThirdOfItsLeaseUntilReleased() {
        ManualLockClock clock = new ManualLockClock(Long.MAX_VALUE - LEASE.toNanos()); // wraps during the test
        ScriptedLockStore store = new ScriptedLockStore();
        LockTable locks = LockTable.Builder.over(store, "pk").clock(clock).build();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            leases.add(locks.tryAcquire("lock-" + i, LEASE).orElseThrow());
            clock.advance(Duration.ofMillis(7)); // acquired over 7 s, so their renewals fall due apart
        }
        assertThat(clock.pending()).isEqualTo(1);
        int before = store.sent(ScriptedLockStore.Op.RENEW);

        clock.advance(LEASE.multipliedBy(3)); // nine renewal periods

        assertThat(leases).allMatch(Lease::isHeld);
        assertThat(store.sent(ScriptedLockStore.Op.RENEW) - before).isBetween(9 * 1000, 9 * 1000 + 1000);
        assertThat(clock.pending()).isEqualTo(1);
        assertThat(locks.heldLeases()).hasSize(1000);

        leases.forEach(Lease::release);
        int released = store.sent(ScriptedLockStore.Op.RENEW);

        assertThat(locks.heldLeases()).isEmpty();
        assertThat(clock.pending())
                .as("the table's one task stays, to spare the next acquire a wake")
                .isEqualTo(1);
        clock.advance(LEASE);
        assertThat(store.sent(ScriptedLockStore.Op.RENEW))
                .as("it finds no lease")
                .isEqualTo(released);
        assertThat(clock.pending()).as("and sets no next one").isZero();
    }

    @Test
    void aClosedTableLeavesNothingScheduled() {
        ManualLockClock clock = new ManualLockClock(0);
        LockTable locks = LockTable.Builder.over(new ScriptedLockStore(), "pk")
                .clock(clock)
                .build();
        locks.tryAcquire("released", LEASE).orElseThrow().release();
        locks.tryAcquire("held", LEASE).orElseThrow();
        assertThat(clock.pending()).isEqualTo(1);

        locks.close();

        assertThat(clock.pending()).as("the table's kept task goes with it").isZero();
    }
}
