package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockStore.StoredLock;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Protocol}'s decisions as table rows: what this table had seen, what the store answered and when, and what the
 * protocol must then do. Milliseconds of one process's clock (near the wrap of {@code nanoTime} in some rows); no
 * engine, no threads.
 */
class ProtocolTest {

    private static final long MS = 1_000_000L;
    private static final long LEASE = 30_000 * MS;
    private static final long NEAR_WRAP = Long.MAX_VALUE - 10_000 * MS;

    private static StoredLock held(String rvn) {
        return new StoredLock("orders", "them.1", null, rvn, 7, 30_000);
    }

    private static StoredLock free() {
        return new StoredLock("orders", null, null, "old", 7, 30_000);
    }

    record ReadRow(
            String story, Protocol.Seen watched, @Nullable StoredLock current, long answeredAt, Protocol.Next next) {
        @Override
        public String toString() {
            return story;
        }
    }

    static Stream<ReadRow> reads() {
        Protocol.Seen seenAt0 = new Protocol.Seen("a", 0, LEASE);
        Protocol.Seen seenNearWrap = new Protocol.Seen("a", NEAR_WRAP, LEASE);
        return Stream.of(
                new ReadRow("no item: write at once", seenAt0, null, 5 * MS, new Protocol.WriteFree()),
                new ReadRow("released: write at once", seenAt0, free(), 5 * MS, new Protocol.WriteFree()),
                new ReadRow(
                        "same version, a third of a lease: wait until it is due",
                        seenAt0,
                        held("a"),
                        10_000 * MS,
                        new Protocol.Busy(20_000 * MS, LEASE, seenAt0)),
                new ReadRow(
                        "same version, one millisecond short of a lease: still busy",
                        seenAt0,
                        held("a"),
                        LEASE - MS,
                        new Protocol.Busy(MS, LEASE, seenAt0)),
                new ReadRow(
                        "same version for a whole lease: take over on that version",
                        seenAt0,
                        held("a"),
                        LEASE,
                        new Protocol.TakeOver("a")),
                new ReadRow(
                        "same version for a whole lease across the wrap of nanoTime",
                        seenNearWrap,
                        held("a"),
                        NEAR_WRAP + LEASE,
                        new Protocol.TakeOver("a")),
                new ReadRow(
                        "a new version: a new watch, dated by this answer",
                        seenAt0,
                        held("b"),
                        29_000 * MS,
                        new Protocol.Busy(LEASE, LEASE, new Protocol.Seen("b", 29_000 * MS, LEASE))));
    }

    @ParameterizedTest
    @MethodSource("reads")
    void step4AReadDecidesBetweenWritingWaitingAndTakingOver(ReadRow row) {
        assertThat(Protocol.afterRead(row.watched(), row.current(), row.answeredAt()))
                .isEqualTo(row.next());
    }

    record RefusalRow(
            String story,
            Protocol.@Nullable Seen watched,
            @Nullable StoredLock holder,
            long answeredAt,
            Protocol.Busy busy) {
        @Override
        public String toString() {
            return story;
        }
    }

    static Stream<RefusalRow> refusals() {
        Protocol.Seen seenAt0 = new Protocol.Seen("a", 0, LEASE);
        return Stream.of(
                new RefusalRow(
                        "the item moved on to free: retry soon", null, free(), 5 * MS, new Protocol.Busy(-1, -1, null)),
                new RefusalRow("no item any more: retry soon", seenAt0, null, 5 * MS, new Protocol.Busy(-1, -1, null)),
                new RefusalRow(
                        "first sight of a holder: a whole lease from this answer",
                        null,
                        held("a"),
                        5 * MS,
                        new Protocol.Busy(LEASE, LEASE, new Protocol.Seen("a", 5 * MS, LEASE))),
                new RefusalRow(
                        "the version watched before: counted from its first sight",
                        seenAt0,
                        held("a"),
                        12_000 * MS,
                        new Protocol.Busy(18_000 * MS, LEASE, seenAt0)),
                new RefusalRow(
                        "watched past its due: due now, never negative",
                        seenAt0,
                        held("a"),
                        40_000 * MS,
                        new Protocol.Busy(0, LEASE, seenAt0)));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void step3ARefusedWriteRemembersTheHolderFromItsFirstSight(RefusalRow row) {
        assertThat(Protocol.afterRefusal(row.watched(), row.holder(), row.answeredAt()))
                .isEqualTo(row.busy());
    }

    record RenewalRow(String story, long endAt, long sentAt, long answeredAt, long newEnd) {
        @Override
        public String toString() {
            return story;
        }
    }

    static Stream<RenewalRow> renewals() {
        return Stream.of(
                new RenewalRow(
                        "answered in time: the end moves to the send time plus a lease",
                        30_000 * MS,
                        10_000 * MS,
                        10_050 * MS,
                        40_000 * MS),
                new RenewalRow(
                        "a slow answer counts from its send time, not its answer",
                        30_000 * MS,
                        10_000 * MS,
                        25_000 * MS,
                        40_000 * MS),
                new RenewalRow(
                        "an older renewal answered late never moves the end back",
                        40_000 * MS,
                        5_000 * MS,
                        12_000 * MS,
                        40_000 * MS),
                new RenewalRow(
                        "answered after the end: the lease stays ended",
                        30_000 * MS,
                        10_000 * MS,
                        35_000 * MS,
                        30_000 * MS),
                new RenewalRow(
                        "answered exactly at the end: ended", 30_000 * MS, 10_000 * MS, 30_000 * MS, 30_000 * MS),
                new RenewalRow(
                        "across the wrap of nanoTime",
                        NEAR_WRAP + LEASE,
                        NEAR_WRAP + 10_000 * MS,
                        NEAR_WRAP + 10_100 * MS,
                        NEAR_WRAP + 40_000 * MS));
    }

    @ParameterizedTest
    @MethodSource("renewals")
    void step5AConfirmedRenewalMovesTheEndToItsSendTimePlusALeaseAndNeverRevivesAnEndedLease(RenewalRow row) {
        long end = Protocol.renewalCounts(row.endAt(), row.answeredAt())
                ? Protocol.endAfterRenewal(row.endAt(), row.sentAt(), LEASE)
                : row.endAt(); // as LeaseState.renewed takes the two decisions
        assertThat(end).isEqualTo(row.newEnd());
    }

    record StepRow(String story, long endAt, long now, int unanswered, Protocol.RenewalStep step) {
        @Override
        public String toString() {
            return story;
        }
    }

    static Stream<StepRow> steps() {
        return Stream.of(
                new StepRow("due with time left: send", 30_000 * MS, 10_000 * MS, 0, Protocol.RenewalStep.SEND),
                new StepRow("fifteen unanswered: still send", 30_000 * MS, 10_000 * MS, 15, Protocol.RenewalStep.SEND),
                new StepRow(
                        "sixteen unanswered: settle with one read",
                        30_000 * MS,
                        10_000 * MS,
                        16,
                        Protocol.RenewalStep.SETTLE),
                new StepRow("its time ran out: expire", 30_000 * MS, 30_000 * MS, 0, Protocol.RenewalStep.EXPIRE),
                new StepRow(
                        "ran out, whatever is unanswered", 30_000 * MS, 31_000 * MS, 16, Protocol.RenewalStep.EXPIRE));
    }

    @ParameterizedTest
    @MethodSource("steps")
    void step5ADueRenewalSendsSettlesOrExpires(StepRow row) {
        assertThat(Protocol.atRenewal(row.endAt(), row.now(), row.unanswered(), Timing.MAX_UNANSWERED))
                .isEqualTo(row.step());
    }

    record WakeRow(String story, long now, long watch, boolean live, boolean renewing, Protocol.Wake wake) {
        @Override
        public String toString() {
            return story;
        }
    }

    static Stream<WakeRow> wakes() {
        return Stream.of(
                new WakeRow("due, before its watch: renew", 10_000 * MS, 28_000 * MS, true, false, Protocol.Wake.RENEW),
                new WakeRow(
                        "a renewal under way: wait for the watch",
                        20_000 * MS,
                        28_000 * MS,
                        true,
                        true,
                        Protocol.Wake.WATCH),
                new WakeRow("at its watch: expire", 28_000 * MS, 28_000 * MS, true, true, Protocol.Wake.EXPIRE),
                new WakeRow(
                        "past its watch, though no renewal is under way: expire",
                        29_000 * MS,
                        28_000 * MS,
                        true,
                        false,
                        Protocol.Wake.EXPIRE),
                new WakeRow(
                        "ended (released meanwhile): off the timer",
                        10_000 * MS,
                        28_000 * MS,
                        false,
                        false,
                        Protocol.Wake.EXPIRE),
                new WakeRow(
                        "the clock wrapped: still before its watch",
                        Long.MAX_VALUE,
                        Long.MAX_VALUE + 1_000 * MS,
                        true,
                        false,
                        Protocol.Wake.RENEW));
    }

    @ParameterizedTest
    @MethodSource("wakes")
    void step5TheTimerRenewsWaitsForTheWatchOrExpires(WakeRow row) {
        assertThat(Protocol.atWake(row.now(), row.watch(), row.live(), row.renewing()))
                .isEqualTo(row.wake());
    }

    @Test
    void step5TheExpiryWatchIsAGuardBeforeTheEnd() {
        long lease = 30_000 * MS;
        assertThat(Protocol.expiryWatch(100_000 * MS, lease)).isEqualTo(100_000 * MS - Timing.expiryGuard(lease));
        assertThat(Timing.expiryGuard(lease)).isPositive().isLessThan(lease / 3);
    }

    record SettleRow(String story, @Nullable StoredLock stored, Protocol.Settled settled) {
        @Override
        public String toString() {
            return story;
        }
    }

    static Stream<SettleRow> settles() {
        StoredLock mine = new StoredLock("orders", "me.3", null, "confirmed", 4, 30_000);
        return Stream.of(
                new SettleRow("no item: lost", null, new Protocol.Lost("a read found another holder or no owner")),
                new SettleRow(
                        "another owner: lost",
                        new StoredLock("orders", "them.1", null, "u1", 4, 30_000),
                        new Protocol.Lost("a read found another holder or no owner")),
                new SettleRow(
                        "our owner, another fence (a later acquisition): lost",
                        new StoredLock("orders", "me.3", null, "u1", 5, 30_000),
                        new Protocol.Lost("a read found another holder or no owner")),
                new SettleRow("still at the confirmed version: none applied", mine, new Protocol.NoneApplied()),
                new SettleRow(
                        "at an unanswered version: it was applied, from its send time",
                        new StoredLock("orders", "me.3", null, "u2", 4, 30_000),
                        new Protocol.Applied("u2", 12L)),
                new SettleRow(
                        "at a version this lease never wrote: lost",
                        new StoredLock("orders", "me.3", null, "other", 4, 30_000),
                        new Protocol.Lost("a read found a record version this lease did not write")));
    }

    @ParameterizedTest
    @MethodSource("settles")
    void step5ASettlingReadTellsWhichUnansweredRenewalWasApplied(SettleRow row) {
        assertThat(Protocol.settle(row.stored(), "me.3", 4, "confirmed", Map.of("u1", 11L, "u2", 12L)))
                .isEqualTo(row.settled());
    }

    @ParameterizedTest
    @MethodSource("settles")
    void steps6And7OnlyThisAcquisitionsOwnerAndFenceHoldTheItem(SettleRow row) {
        boolean held = row.stored() != null
                && "me.3".equals(row.stored().owner())
                && row.stored().fence() == 4;
        assertThat(Protocol.heldBy(row.stored(), "me.3", 4)).isEqualTo(held);
    }

    @Test
    void step2TheFenceRisesByOneAndARecreatedItemContinuesFromTheHighestKnown() {
        assertThat(Protocol.nextFence(held("a"), 100))
                .as("the item's, not the mark")
                .isEqualTo(8);
        assertThat(Protocol.nextFence(null, 0)).as("a new lock").isEqualTo(1);
        assertThat(Protocol.nextFence(null, 41)).as("deleted and made again").isEqualTo(42);
        assertThat(Protocol.isOwnWrite(new StoredLock("orders", "me.1", null, "r", 1, 30_000), "me.1", "r"))
                .isTrue();
        assertThat(Protocol.isOwnWrite(new StoredLock("orders", "me.2", null, "r", 1, 30_000), "me.1", "r"))
                .isFalse();
        assertThat(Protocol.isOwnWrite(null, "me.1", "r")).isFalse();
        assertThat(Protocol.readsFirst(null)).isFalse();
        assertThat(Protocol.readsFirst(new Protocol.Seen("a", 0, LEASE))).isTrue();
    }
}
