package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fencing high-water mark compares only tokens answered in a known order, and never goes down. No engine. */
class FenceHighWaterTest {

    private final List<String> regressions = new ArrayList<>();
    private final LockMemory fences = new LockMemory("Shop", new LockTableListener() {
        @Override
        public void onFenceRegressed(String name, long highestSeen, long fencingToken) {
            regressions.add(highestSeen + "->" + fencingToken);
        }
    });

    @Test
    void aGrantAnsweredAlongsideAReadThatShowedTheSameTokenIsNoRegression() {
        // one thread's acquire is granted 5 while another thread's read, overlapping it, already shows 5
        fences.observed("orders", 5, 100, 200);
        fences.granted("orders", 5, 150, 300);

        assertThat(regressions).isEmpty();
        assertThat(fences.highest("orders")).isEqualTo(5);
    }

    @Test
    void aGrantSentAfterAnAnswerShowedTheSameTokenIsARegression() {
        fences.observed("orders", 5, 100, 200);
        fences.granted("orders", 5, 201, 300);

        assertThat(regressions).containsExactly("5->5");
    }

    @Test
    void aLowerTokenInKnownOrderIsReportedEachTimeAndTheMarkNeverGoesDown() {
        fences.granted("orders", 7, 0, 10);
        fences.observed("orders", 3, 20, 30);
        fences.granted("orders", 4, 40, 50);

        assertThat(regressions).containsExactly("7->3", "7->4");
        assertThat(fences.highest("orders")).isEqualTo(7);
    }

    @Test
    void aLowerTokenFromARequestThatOverlappedTheMarksIsNotCompared() {
        fences.granted("orders", 7, 0, 100);
        fences.observed("orders", 6, 50, 120); // sent before 7 was answered: it may have been served first

        assertThat(regressions).isEmpty();
    }

    @Test
    void timesAreComparedAsDifferencesSoAWrappingClockKeepsTheOrder() {
        long nearWrap = Long.MAX_VALUE - 5;
        fences.observed("orders", 5, nearWrap, nearWrap + 3);
        fences.granted("orders", 5, nearWrap + 10, nearWrap + 20); // after the wrap, still later

        assertThat(regressions).containsExactly("5->5");
    }

    @Test
    void locksAreMarkedApart() {
        fences.granted("orders", 9, 0, 10);
        fences.granted("invoices", 1, 20, 30);

        assertThat(regressions).isEmpty();
        assertThat(fences.highest("invoices")).isEqualTo(1);
    }

    @Test
    void locksWhoseNamesHashAlikeAreMarkedApartWhileInUseAndAfter() {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode()); // one bucket of the marks in use
        fences.enter("Aa");
        fences.enter("BB");
        fences.granted("Aa", 7, 0, 10);
        fences.granted("BB", 3, 0, 10);
        fences.leave("Aa");

        fences.observed("BB", 2, 20, 30);
        assertThat(regressions).containsExactly("3->2");
        fences.leave("BB");
        assertThat(fences.highest("Aa")).isEqualTo(7);
        assertThat(fences.highest("BB")).isEqualTo(3);
        assertThat(fences.size()).isEqualTo(2);
    }

    @Test
    void manyLocksInUseAtOnceKeepTheirMarksAsTheMarksInUseGrowAndShrink() {
        int locks = 10 * LockMemory.IDLE_NAMES;
        for (int i = 0; i < locks; i++) {
            fences.enter("lock-" + i);
            fences.granted("lock-" + i, 10 + i, 0, 10);
        }
        assertThat(fences.size()).isEqualTo(locks);
        for (int i = 0; i < locks - 10; i++) {
            fences.leave("lock-" + i); // all but the last ten end
        }

        assertThat(fences.size()).isEqualTo(LockMemory.IDLE_NAMES + 10);
        for (int i = locks - 10; i < locks; i++) {
            fences.observed("lock-" + i, 1, 20, 30);
            assertThat(fences.highest("lock-" + i)).isEqualTo(10 + i);
        }
        assertThat(regressions).hasSize(10).allMatch(regression -> regression.endsWith("->1"));
    }

    @Test
    void marksOfLocksNoLongerInUseAreBoundedWhileAMarkInUseIsKeptAndNeverGoesDown() {
        fences.enter("orders"); // held all along
        fences.granted("orders", 7, 0, 10);
        for (int i = 0; i < 10 * LockMemory.IDLE_NAMES; i++) {
            String name = "order-" + i; // a lock per entity, acquired and released once
            fences.enter(name);
            fences.granted(name, 1, 20, 30);
            fences.leave(name);
        }

        assertThat(fences.size()).isEqualTo(LockMemory.IDLE_NAMES + 1);
        fences.observed("orders", 3, 40, 50);
        assertThat(regressions).containsExactly("7->3");
        assertThat(fences.highest("orders")).isEqualTo(7);
    }

    @Test
    void aRecentlyIdleMarkStillCatchesARegressionAcrossTheGap() {
        fences.enter("orders");
        fences.granted("orders", 3, 0, 10);
        fences.leave("orders");

        fences.enter("orders"); // the item was deleted meanwhile
        fences.granted("orders", 1, 20, 30);

        assertThat(regressions).containsExactly("3->1");
    }

    @Test
    void aForgottenMarkRaisesNoAlarmAndStartsAgain() {
        fences.enter("orders");
        fences.granted("orders", 3, 0, 10);
        fences.leave("orders");
        for (int i = 0; i < LockMemory.IDLE_NAMES; i++) {
            fences.observed("other-" + i, 1, 20, 30); // pushes the idle mark of orders out
        }

        fences.granted("orders", 1, 40, 50);

        assertThat(regressions).isEmpty();
        assertThat(fences.highest("orders")).isEqualTo(1);
    }

    @Test
    void leasesReleasedOnePerNameLeaveNoMoreMarksThanTheBound() {
        ManualLockClock clock = new ManualLockClock(0);
        LockTable locks = LockTable.Builder.over(new ScriptedLockStore(), "pk")
                .clock(clock)
                .build();
        Lease held = locks.tryAcquire("held", Duration.ofSeconds(30)).orElseThrow();
        for (int i = 0; i < 4 * LockMemory.IDLE_NAMES; i++) {
            locks.tryAcquire("order-" + i, Duration.ofSeconds(30)).orElseThrow().release();
        }

        // a mark per name ever acquired before: 1 + 4 * IDLE_MARKS
        assertThat(locks.fenceMarks()).isEqualTo(1 + LockMemory.IDLE_NAMES);
        assertThat(held.isHeld()).isTrue();
    }
}
