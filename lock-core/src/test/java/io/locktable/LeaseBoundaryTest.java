package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The lease rules at their exact boundaries, in memory, with each process on a {@link ManualLockClock} of its own:
 * time moves only when the test moves it, so one nanosecond before and after a boundary can be asked about, and the
 * clocks' origins are far apart (one next to {@code Long.MAX_VALUE}, so its values wrap), as two machines' monotonic
 * clocks have nothing in common. What is sent, and answers lost, late or failed, are in {@link VirtualTimeTest}, over
 * an engine.
 */
class LeaseBoundaryTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration NANO = Duration.ofNanos(1);

    @AutoClose
    private final MemoryTables tables = new MemoryTables("LeaseBoundary");

    private final ManualLockClock holderClock =
            new ManualLockClock(Long.MAX_VALUE - Duration.ofSeconds(10).toNanos());
    private final ManualLockClock contenderClock = new ManualLockClock(-42);
    private final String name = Contenders.lockName();

    @Test
    void aContenderTakesOverAfterWatchingOneRecordVersionForAWholeLeaseOnItsOwnClockAndNotOneNanosecondSooner() {
        LockTable holder = tables.add(b -> b.clock(holderClock));
        LockTable contender = tables.add(b -> b.clock(contenderClock));
        Lease held = holder.tryAcquire(name, LEASE).orElseThrow();

        // the holder is paused (its clock stands still: no renewal); the contender first sees it now
        assertThat(contender.tryAcquire(name, LEASE)).isEmpty();
        contenderClock.advance(LEASE.minus(NANO));
        assertThat(contender.tryAcquire(name, LEASE)).isEmpty();
        contenderClock.advance(NANO);
        Optional<Lease> taken = contender.tryAcquire(name, LEASE);

        assertThat(taken).hasValueSatisfying(lease -> {
            assertThat(lease.tookOver()).isTrue();
            assertThat(lease.fencingToken()).isEqualTo(held.fencingToken() + 1);
        });
        // the paused holder still believes it holds (fencing is for this); its first renewal after it resumes
        // finds the record version changed and ends the lease as lost
        assertThat(held.isHeld()).isTrue();
        holderClock.advance(LEASE.dividedBy(3));
        assertThat(held.whenEnded()).isCompletedWithValue(LeaseEnd.LOST);
        assertThat(taken.orElseThrow().isHeld()).isTrue();
    }

    @Test
    void aHolderThatKeepsRenewingIsNeverTakenOverHoweverLongTheContenderWatches() {
        LockTable holder = tables.add(b -> b.clock(holderClock));
        LockTable contender = tables.add(b -> b.clock(contenderClock));
        Lease held = holder.tryAcquire(name, LEASE).orElseThrow();

        // forty leases of time, the contender asking every 5 s, both clocks running at the same rate
        Duration step = Duration.ofSeconds(5);
        for (int i = 0; i < 40 * 6; i++) {
            assertThat(contender.tryAcquire(name, LEASE))
                    .as("after %s s", i * 5)
                    .isEmpty();
            holderClock.advance(step);
            contenderClock.advance(step);
        }

        assertThat(held.isHeld()).isTrue();
        assertThat(held.renewedAt()).isAfter(held.acquiredAt().plus(LEASE.multipliedBy(39)));
    }

    /**
     * The one assumption about clocks: that they run at about the same rate. A holder renews every third of its
     * lease on its own clock, so a contender watching one record version for a whole lease on its clock is safe
     * while the holder's clock runs at more than a third of the contender's rate; below that, the contender takes
     * over a holder that still believes it holds, which is what fencing tokens are for.
     */
    @ParameterizedTest(name = "holder clock at {0} of the contender''s rate")
    @CsvSource({"1.0, false", "0.5, false", "0.4, false", "0.3, true"})
    void aRenewingHolderIsSafeWhileItsClockRunsAtMoreThanAThirdOfTheContendersRate(
            double holderRate, boolean takenOver) {
        LockTable holder = tables.add(b -> b.clock(holderClock));
        LockTable contender = tables.add(b -> b.clock(contenderClock));
        Lease held = holder.tryAcquire(name, LEASE).orElseThrow();

        Duration step = Duration.ofSeconds(1);
        Optional<Lease> taken = Optional.empty();
        for (int second = 0; second < 10 * 30 && taken.isEmpty(); second++) {
            taken = contender.tryAcquire(name, LEASE);
            contenderClock.advance(step);
            holderClock.advance(Duration.ofNanos((long) (step.toNanos() * holderRate)));
        }

        assertThat(taken.isPresent()).as("taken over within ten leases").isEqualTo(takenOver);
        if (takenOver) {
            assertThat(held.isHeld())
                    .as("the slow holder still believes it holds")
                    .isTrue();
            assertThat(taken.orElseThrow().fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aLeaseRenewedAcrossTheWrapOfTheMonotonicClockStaysHeld() {
        // its first end is before the counter wraps, the ends of later renewals after it
        ManualLockClock wrapping =
                new ManualLockClock(Long.MAX_VALUE - Duration.ofSeconds(40).toNanos());
        LockTable holder = tables.add(b -> b.clock(wrapping));
        Lease held = holder.tryAcquire(name, LEASE).orElseThrow();

        for (int second = 0; second < 5 * 30; second++) {
            wrapping.advance(Duration.ofSeconds(1));
        }

        assertThat(held.isHeld()).as("renewed through five leases").isTrue();
        assertThat(held.remaining()).isGreaterThan(LEASE.dividedBy(2));
    }
}
