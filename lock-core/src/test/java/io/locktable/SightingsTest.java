package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What a table remembers of the holders it saw (the record version and when it was first seen, for the takeover rule),
 * in memory and virtual time: bounded once nobody of the table waits for or acquires a name, and never forgotten
 * under a waiting acquire or an election, so that forgetting only ever makes a takeover later.
 */
class SightingsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int CHURN = 4 * LockMemory.IDLE_NAMES;

    @AutoClose
    private final MemoryTables tables = new MemoryTables("Sightings");

    private final ManualLockClock time = new ManualLockClock();
    /** The holder's clock never moves: it never renews, as a process that crashed. */
    private final LockTable holder = tables.add(builder -> builder.clock(new ManualLockClock()));

    private final LockTable contender = tables.add(builder -> builder.clock(time));

    @Test
    void aTableForgetsTheHoldersOfNamesItTriedOnceAndNoLongerUses() {
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < CHURN; i++) {
            held.add(holder.tryAcquire("entity-" + i, LEASE).orElseThrow());
        }
        for (int i = 0; i < CHURN; i++) {
            assertThat(contender.tryAcquire("entity-" + i, LEASE)).isEmpty();
        }
        held.forEach(Lease::release);

        assertThat(contender.sightingsKept())
                .as("of %s names tried once, each busy then", CHURN)
                .isLessThanOrEqualTo(LockMemory.IDLE_NAMES);
    }

    @Test
    void aForgottenSightingOnlyMakesATryAcquireTakeOverLater() {
        holder.tryAcquire("job", LEASE).orElseThrow();
        assertThat(contender.tryAcquire("job", LEASE)).isEmpty(); // first sight of the holder
        churn();
        time.advance(LEASE);

        assertThat(contender.tryAcquire("job", LEASE))
                .as("its sighting was forgotten: a lease from now, not from the first sight")
                .isEmpty();
        time.advance(LEASE.minusNanos(1));
        assertThat(contender.tryAcquire("job", LEASE)).isEmpty();
        time.advance(Duration.ofNanos(1));
        assertThat(contender.tryAcquire("job", LEASE))
                .hasValueSatisfying(lease -> assertThat(lease.tookOver()).isTrue());
    }

    @Test
    void aRecentSightingOfAnIdleNameStillTakesOverAfterOneLease() {
        holder.tryAcquire("job", LEASE).orElseThrow();
        assertThat(contender.tryAcquire("job", LEASE)).isEmpty();
        time.advance(LEASE.minusNanos(1));
        assertThat(contender.tryAcquire("job", LEASE)).isEmpty();
        time.advance(Duration.ofNanos(1));

        assertThat(contender.tryAcquire("job", LEASE)).isPresent();
    }

    @Test
    void aWaitingAcquireKeepsItsSightingWhileOtherNamesComeAndGo() {
        holder.tryAcquire("job", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = contender.acquireAsync("job", LEASE);
        time.advance(Duration.ZERO); // its first attempt: the first sight of the holder
        assertThat(waiting).isNotDone();

        churn();
        time.advance(LEASE.plus(Timing.MAX_POLL));

        assertThat(waiting)
                .as("taken over a lease after its first sight, at the next poll (completed on the completion executor)")
                .succeedsWithin(Duration.ofSeconds(10))
                .matches(Lease::tookOver);
    }

    @Test
    void anElectionKeepsItsSightingWhileOtherNamesComeAndGo() {
        holder.tryAcquire("job", LEASE).orElseThrow();
        try (Leadership leadership = contender.lead("job", LEASE)) {
            time.advance(Duration.ZERO); // its first attempt: the first sight of the holder
            assertThat(leadership.isLeader()).isFalse();

            churn();
            time.advance(LEASE.plus(Timing.MAX_POLL));

            assertThat(leadership.isLeader())
                    .as("taken over a lease after its first sight, at the next poll")
                    .isTrue();
        }
    }

    /** The contender tries many other names once, each busy, which the holder then releases. */
    private void churn() {
        for (int i = 0; i < CHURN; i++) {
            Lease other = holder.tryAcquire("other-" + i, LEASE).orElseThrow();
            assertThat(contender.tryAcquire("other-" + i, LEASE)).isEmpty();
            other.release();
        }
    }
}
