package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What a table's {@link LockTable#close()} does to what is under way on it: nothing it started outlives it, and what
 * it may have written is given back (issue 23, points 1, 2, 7 and 8). In memory: the requests around a close, and
 * answers lost or late as it closes, are in {@link ClosingTableEngineTest}.
 */
class ClosingTableTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Far below the 10 s a waiting acquire sleeps between polls of a 30 s holder. */
    private static final long PROMPTLY_SECONDS = 3;

    @AutoClose
    private final MemoryTables tables = new MemoryTables("ClosingTable");

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final String name = Contenders.lockName();

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    /** A listener that counts down once an acquire attempt of its table found the lock held. */
    private static LockTableListener heardBusy(CountDownLatch busy) {
        return new LockTableListener() {
            @Override
            public void onBusy(String name, LockRecord holder) {
                busy.countDown();
            }
        };
    }

    @Test
    void aWaitingAcquireOfTheTableThatHoldsTheLockEndsWhenItCloses() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        LockTable both = tables.add(builder -> builder.listener(heardBusy(busy)));
        both.tryAcquire(name, LEASE).orElseThrow();
        Future<Lease> acquire = callers.submit(() -> both.acquire(name, LEASE));
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue(); // not reentrant: refused, it polls now

        both.close();

        assertThatThrownBy(() -> acquire.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(tables.add().tryAcquire(name, LEASE))
                .as("released by the close")
                .isPresent();
    }

    @Test
    void aLeadershipWaitingForALockStopsWhenItsTableCloses() throws Exception {
        tables.add().tryAcquire(name, LEASE).orElseThrow();
        CountDownLatch busy = new CountDownLatch(1);
        LockTable follower = tables.add(builder -> builder.listener(heardBusy(busy)));
        Leadership leadership = follower.lead(name, LEASE);
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue(); // refused: it polls now

        follower.close();

        assertThat(leadership.whenStopped().get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .isNull();
        assertThat(leadership.isLeader()).isFalse();
    }

    @Test
    void aLeadershipInAStepDownCoolDownStopsWhenItsTableCloses() throws Exception {
        LockTable leader = tables.add();
        Leadership leadership = leader.lead(name, LEASE);
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);
        leadership.stepDown(Duration.ofMinutes(10));

        leader.close();

        assertThat(leadership.whenStopped().get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .isNull();
    }

    @Test
    void aLeadershipStartedOnAClosedTableIsRefused() {
        LockTable locks = tables.add();
        locks.close();

        assertThatThrownBy(() -> locks.lead(name, LEASE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void runAsLeaderThrowsTheCloseNotAnInterruptWhenTheTableClosesMidTerm() throws Exception {
        LockTable leader = tables.add();
        CountDownLatch leading = new CountDownLatch(1);
        Future<?> election = callers.submit(() -> {
            leader.runAsLeader(name, LEASE, lease -> {
                leading.countDown();
                Thread.sleep(Long.MAX_VALUE);
            });
            return null;
        });
        assertThat(leading.await(5, TimeUnit.SECONDS)).isTrue();

        leader.close();

        assertThatThrownBy(() -> election.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .cause()
                .as("the caller was not interrupted: the table closed")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was closed while leading lock '" + name + "'")
                .hasCauseInstanceOf(InterruptedException.class);
    }
}
