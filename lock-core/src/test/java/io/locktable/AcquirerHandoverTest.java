package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Handover}: a release by this table wakes one waiter of that lock only, and nobody waits holding a
 * monitor. No engine.
 */
class AcquirerHandoverTest {

    private final Handover handover = new Handover();
    private final ExecutorService waiters = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        waiters.shutdownNow();
    }

    @Test
    void aReleaseWakesTheLongestWaiterOfThatLockAndNoWaiterOfAnother() throws Exception {
        Handover.Waiter first = handover.enlist("a");
        Handover.Waiter second = handover.enlist("a");
        Handover.Waiter other = handover.enlist("b");
        Future<Boolean> firstWoken = waiters.submit(() -> handover.await(first, TimeUnit.SECONDS.toNanos(10)));
        Future<Boolean> secondWoken = waiters.submit(() -> handover.await(second, TimeUnit.MILLISECONDS.toNanos(500)));
        Future<Boolean> otherWoken = waiters.submit(() -> handover.await(other, TimeUnit.MILLISECONDS.toNanos(500)));

        handover.released("a");

        assertThat(firstWoken.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(secondWoken.get(5, TimeUnit.SECONDS))
                .as("timed out, not woken")
                .isFalse();
        assertThat(otherWoken.get(5, TimeUnit.SECONDS))
                .as("timed out, not woken")
                .isFalse();
    }

    @Test
    void aWaiterThatHoldsNoThreadIsCalledBackAndTakesTheWakeWithoutWaiting() {
        AtomicInteger wakes = new AtomicInteger();
        AtomicInteger closes = new AtomicInteger();
        Handover.Waiter closeOnly = handover.enlistForClose("a", closes::incrementAndGet);
        Handover.Waiter waiter = handover.enlist("a", wakes::incrementAndGet);
        assertThat(handover.woken(waiter)).isFalse();

        handover.released("a");

        assertThat(wakes).as("handed the lock, though enlisted second").hasValue(1);
        assertThat(closes)
                .as("an attempt that does not wait is never handed the lock")
                .hasValue(0);
        assertThat(handover.woken(waiter)).isTrue();
        assertThat(handover.woken(waiter)).as("one wake, taken once").isFalse();
        assertThat(handover.woken(closeOnly)).isFalse();

        handover.closeAll();

        assertThat(wakes).hasValue(2);
        assertThat(closes).hasValue(1);
    }

    @Test
    void aWaiterWithAWakeItHasNotTakenYetIsStillCalledBackWhenTheTableCloses() {
        AtomicInteger wakes = new AtomicInteger();
        Handover.Waiter waiter = handover.enlist("a", wakes::incrementAndGet);
        handover.released("a"); // its attempt is queued, say, and will take the wake when it pauses

        handover.closeAll();

        // an attempt queued on workers that the close discards never runs: the callback is what ends the wait
        assertThat(wakes).as("once for the release, once for the close").hasValue(2);
        assertThat(handover.woken(waiter)).isTrue();
        assertThat(handover.woken(waiter))
                .as("the table is closed: every look finds it woken")
                .isTrue();
    }

    @Test
    void aBlockingWaiterThatTookAWakeFindsTheCloseAtItsNextWait() throws Exception {
        Handover.Waiter waiter = handover.enlist("a");
        handover.released("a");
        assertThat(handover.await(waiter, TimeUnit.SECONDS.toNanos(10))).isTrue();

        handover.closeAll();

        Future<Boolean> woken = waiters.submit(() -> handover.await(waiter, TimeUnit.SECONDS.toNanos(30)));
        assertThat(woken.get(5, TimeUnit.SECONDS))
                .as("woken by the close, not after its poll")
                .isTrue();
    }

    @Test
    void aWaiterHoldsNoMonitorWhileItWaits() throws Exception {
        Handover.Waiter waiter = handover.enlist("a");
        AtomicReference<Thread> thread = new AtomicReference<>();
        Future<Boolean> woken = waiters.submit(() -> {
            thread.set(Thread.currentThread());
            return handover.await(waiter, TimeUnit.SECONDS.toNanos(10));
        });
        await().atMost(Duration.ofSeconds(5))
                .until(() -> thread.get() != null && thread.get().getState() == Thread.State.TIMED_WAITING);

        // a monitor's wait would pin the carrier thread of a virtual thread on JDK 21 to 23
        ThreadInfo info = ManagementFactory.getThreadMXBean()
                .getThreadInfo(new long[] {thread.get().getId()}, true, true)[0];
        assertThat(info.getLockedMonitors()).isEmpty();
        assertThat(info.getLockInfo().getClassName()).doesNotContain("Acquirer");

        handover.closeAll();
        assertThat(woken.get(5, TimeUnit.SECONDS)).as("woken by the close").isTrue();
    }
}
