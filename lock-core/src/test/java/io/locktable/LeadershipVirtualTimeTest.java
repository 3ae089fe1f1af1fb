package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.ScriptedLockStore.Lost;
import io.locktable.ScriptedLockStore.Meanwhile;
import io.locktable.ScriptedLockStore.Op;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Leadership} and {@link LockTable#runAsLeader} in virtual time, in memory: no engine, no timing. */
class LeadershipVirtualTimeTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final ManualLockClock time = new ManualLockClock();
    private final Workers workers = new Workers(time);
    private final LockTable locks = LockTable.inMemory(
                    "Leadership-" + UUID.randomUUID().toString().substring(0, 8))
            .clock(workers)
            .listener(new LockTableListener() {
                @Override
                public void onReleased(Lease lease) {
                    workers.dropping = false; // the close ended the lease: its own release is sent
                }
            })
            .build();

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void aStepDownWhoseReleaseTheClosingTableDroppedCompletesWithTheClose() {
        Leadership leadership = locks.lead("job", LEASE);
        time.advance(Duration.ZERO);
        assertThat(leadership.isLeader()).isTrue();

        // the step-down's release and the close's stop queue on busy workers, which the close drops
        workers.dropping = true;
        CompletableFuture<Void> steppedDown = leadership.stepDownAsync(Duration.ofMinutes(1));
        locks.close();

        assertThat(steppedDown).succeedsWithin(Duration.ofSeconds(2));
        assertThat(leadership.whenStopped()).isDone();
    }

    @Test
    void aStepDownForeverStepsDownAndSitsOutWithoutThrowing() {
        Leadership leadership = locks.lead("job", LEASE);
        time.advance(Duration.ZERO);
        assertThat(leadership.isLeader()).isTrue();

        leadership.stepDown(ChronoUnit.FOREVER.getDuration());

        assertThat(leadership.isLeader()).isFalse();
        assertThat(locks.heldLeases()).as("its term's lease was released").isEmpty();
        time.advance(Duration.ofDays(100 * 365));
        assertThat(leadership.isLeader())
                .as("a hundred years later it still sits out")
                .isFalse();
        assertThat(locks.heldLeases()).isEmpty();
        assertThat(leadership.whenStopped())
                .as("it sits out, it has not stopped")
                .isNotDone();
    }

    @Test
    void aStepDownAsyncForeverStepsDownAndSitsOutWithoutThrowing() {
        Leadership leadership = locks.lead("job", LEASE);
        time.advance(Duration.ofSeconds(1));
        assertThat(leadership.isLeader()).isTrue();

        CompletableFuture<Void> steppedDown = leadership.stepDownAsync(ChronoUnit.FOREVER.getDuration());

        assertThat(steppedDown).succeedsWithin(Duration.ofSeconds(2));
        assertThat(leadership.isLeader()).isFalse();
        time.advance(Duration.ofDays(100 * 365));
        assertThat(leadership.isLeader())
                .as("a hundred years later it still sits out")
                .isFalse();
        leadership.stepDown(Duration.ofMinutes(1)); // a shorter cool-down after it never shortens it
        time.advance(Duration.ofDays(1));
        assertThat(leadership.isLeader()).isFalse();
    }

    @Test
    void aLeaseReleasedAfterForeverKeepsRenewingOnTheManualClock() {
        Lease lease = locks.tryAcquire("job", LEASE).orElseThrow();
        time.advance(Duration.ofSeconds(1)); // a release scheduled later than the clock's start

        lease.releaseAfter(ChronoUnit.FOREVER.getDuration());
        time.advance(Duration.ofMinutes(5));

        assertThat(lease.isHeld())
                .as("its renewals ran: the release due in 292 years is not queued before them")
                .isTrue();
        lease.release();
    }

    @Test
    void aManualClockAdvancedByMoreThanItCountsSaysSo() {
        assertThatThrownBy(() -> time.advance(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT");
        assertThatThrownBy(() -> time.jump(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anElectionWhoseRetryAfterErrorsIsTooLongToCountWaitsForItAndStillStops() {
        ScriptedLockStore store = new ScriptedLockStore();
        Runnable refuse = () -> {
            throw new IllegalStateException("scripted: not a lock item");
        };
        store.script(Op.READ, new Meanwhile(refuse), 1).script(Op.ACQUIRE, new Meanwhile(refuse), 1);
        try (LockTable scripted =
                LockTable.Builder.over(store, "pk").clock(time).build()) {
            Leadership leadership = scripted.lead("job", LEASE, lease -> {}, ChronoUnit.FOREVER.getDuration());
            time.advance(Duration.ZERO);
            assertThat(leadership.failuresInRow()).isOne();
            assertThat(leadership.lastErrorAt()).as("on the table's clock").contains(time.instant());

            leadership.stopAsync();

            assertThat(leadership.whenStopped())
                    .as("its retry was waiting: it stops at once")
                    .isDone();
        }
    }

    @Test
    void anInterruptOfTheCallerInterruptsTheWorkOfALostTermThatANewTermWaitsFor() throws Exception {
        ScriptedLockStore store = new ScriptedLockStore();
        store.script(Op.RENEW, new Lost(), 1000); // every renewal is lost: each term expires after a lease
        AtomicInteger interrupts = new AtomicInteger();
        AtomicReference<Thread> firstWork = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        try (LockTable scripted =
                LockTable.Builder.over(store, "pk").clock(time).build()) {
            Thread caller = new Thread(() -> {
                try {
                    scripted.runAsLeader("job", LEASE, lease -> {
                        firstWork.compareAndSet(null, Thread.currentThread());
                        try {
                            new CountDownLatch(1).await();
                        } catch (InterruptedException lost) {
                            interrupts.incrementAndGet(); // the lease was lost: it finishes up, interruptibly
                        }
                        try {
                            new CountDownLatch(1).await();
                        } catch (InterruptedException again) {
                            interrupts.incrementAndGet();
                            throw again;
                        }
                    });
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            caller.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                time.advance(Duration.ZERO);
                return firstWork.get() != null;
            });
            Lease first = scripted.heldLeases().iterator().next();
            for (int i = 0; i < 200 && scripted.heldLeases().stream().allMatch(lease -> lease == first); i++) {
                time.advance(Duration.ofSeconds(1)); // the first term expires, a second one is won after a lease
            }
            assertThat(scripted.heldLeases()).singleElement().isNotSameAs(first);
            // the first term's end interrupted its work's thread; the work counts it when that thread next runs
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(interrupts).hasValue(1));

            caller.interrupt();

            try {
                await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(interrupts)
                                .as("the first term's work is interrupted again")
                                .hasValue(2));
                caller.join(5_000);
                assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
            } finally {
                firstWork.get().interrupt();
                firstWork.get().interrupt();
            }
        }
    }

    /** The clock's workers run each task on the calling thread, or drop it while {@link #dropping}. */
    static final class Workers implements LockClock {
        private final ManualLockClock clock;
        volatile boolean dropping;

        Workers(ManualLockClock clock) {
            this.clock = clock;
        }

        @Override
        public long nanoTime() {
            return clock.nanoTime();
        }

        @Override
        public Instant instant() {
            return clock.instant();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            clock.sleep(nanos);
        }

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            return clock.schedule(task, delayNanos);
        }

        @Override
        public void execute(Runnable task) {
            if (!dropping) {
                task.run();
            }
        }
    }
}
