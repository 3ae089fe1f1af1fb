package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The end of a lease reaches the work under it first, over an engine (issue #34, points 1, 2 and 5): an acquire
 * answered after a whole lease runs no work, an async leader's stage is cancelled while the completion executor is
 * blocked, a caller's cancel stops the stage before the lease is released, and a listener closes its own election at
 * once. The same rule over every entry point and obstruction, in memory, is {@link LeaseEndStopsWorkTest}.
 */
@DynamoDbEngineTest
class LeaseEndEngineTest {

    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();
    private final ExecutorService completions = Executors.newSingleThreadExecutor();
    private final CountDownLatch unblock = new CountDownLatch(1);

    LeaseEndEngineTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @AfterEach
    void unblockAndStop() {
        unblock.countDown();
        completions.shutdownNow();
    }

    @Test
    void runLockedRunsNoWorkUnderALeaseThatEndedBeforeItsAcquireWasAnswered() throws Exception {
        Contenders.Contender late = contenders.add();
        Contenders.Contender other = contenders.add();
        late.faults().delayReply("UpdateItem", SHORT_LEASE.plusMillis(500), 1);
        AtomicBoolean ran = new AtomicBoolean();

        Optional<String> result = late.locks().runLocked(name, SHORT_LEASE, Duration.ZERO, () -> {
            ran.set(true);
            return "ran";
        });

        assertThat(result).isEmpty();
        assertThat(ran).as("the work ran under a lease that had ended").isFalse();
        // the late lease was given back: another process takes the lock with the next token
        Lease taken = await().atMost(Duration.ofSeconds(5))
                .until(() -> other.locks().tryAcquire(name, LEASE), Optional::isPresent)
                .orElseThrow();
        assertThat(taken.fencingToken()).isEqualTo(2);
    }

    @Test
    void runLockedInterruptsItsWorkWhenTheLeaseIsLostAndThrowsTheLoss() {
        Contenders.Contender holder = contenders.add();
        AtomicBoolean interrupted = new AtomicBoolean();

        assertThatThrownBy(() -> holder.locks().runLocked(name, SHORT_LEASE, Duration.ZERO, () -> {
                    contenders.engineClientUpdateOwner(name, "an operator"); // the next renewal finds it lost
                    try {
                        Thread.sleep(10_000);
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                    }
                    return "done";
                }))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("LOST")
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(interrupted).isTrue();
        assertThat(Thread.currentThread().isInterrupted())
                .as("the lease's interrupt is cleared")
                .isFalse();
    }

    @Test
    void anAsyncLeadersStageIsCancelledOnTheLossWhileTheCompletionExecutorIsBlocked() throws Exception {
        Contenders.Contender leader = contenders.add(b -> b.completionExecutor(completions));
        CompletableFuture<Void> work = new CompletableFuture<>();
        CountDownLatch called = new CountDownLatch(1);
        leader.locks().runAsLeaderAsync(name, LEASE, lease -> {
            called.countDown();
            return work;
        });
        assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();
        completions.execute(() -> awaitQuietly(unblock)); // a continuation that blocks the executor

        contenders.engineClientUpdateOwner(name, "an operator"); // the next renewal finds the lease lost

        await().atMost(LEASE.plusSeconds(2)).until(work::isCancelled);
        assertThat(unblock.getCount())
                .as("cancelled while the executor was still blocked")
                .isEqualTo(1);
    }

    @Test
    void cancellingRunAsLeaderAsyncCancelsTheStageBeforeTheLeaseIsReleased() throws Exception {
        Contenders.Contender leader = contenders.add(b -> b.completionExecutor(completions));
        AtomicReference<Lease> term = new AtomicReference<>();
        CompletableFuture<Void> work = new CompletableFuture<>();
        AtomicReference<Optional<LeaseEnd>> endWhenCancelled = new AtomicReference<>();
        work.whenComplete((value, error) -> endWhenCancelled.set(term.get().end()));
        CompletableFuture<Void> leading = leader.locks().runAsLeaderAsync(name, LEASE, lease -> {
            term.set(lease);
            return work;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> term.get() != null);
        completions.execute(() -> awaitQuietly(unblock)); // a continuation that blocks the executor

        leading.cancel(true);

        assertThat(work)
                .as("cancelled on the caller's thread, not behind the executor")
                .isCancelled();
        assertThat(endWhenCancelled.get())
                .as("the lease when the stage was cancelled")
                .isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> term.get().end().isPresent());
        assertThat(term.get().end()).contains(LeaseEnd.RELEASED);
    }

    @Test
    void aTermListenerClosesItsOwnElectionAtOnceWithTheLeaseReleased() throws Exception {
        AtomicReference<Leadership> election = new AtomicReference<>();
        CompletableFuture<Long> closedAfterMillis = new CompletableFuture<>();
        CompletableFuture<Optional<LeaseEnd>> endAtReturn = new CompletableFuture<>();
        CountDownLatch started = new CountDownLatch(1);
        Contenders.Contender leader = contenders.add();
        election.set(leader.locks().lead(name, LEASE, lease -> {
            try {
                awaitQuietly(started);
                long begin = System.nanoTime();
                election.get().close(); // on the table's event thread
                closedAfterMillis.complete((System.nanoTime() - begin) / 1_000_000);
                endAtReturn.complete(lease.end());
            } catch (RuntimeException e) {
                closedAfterMillis.completeExceptionally(e);
            }
        }));
        started.countDown();

        // before the fix it waited its whole 6 s bound for a completion queued behind itself
        assertThat(closedAfterMillis.get(10, TimeUnit.SECONDS)).isLessThan(3_000);
        assertThat(endAtReturn.get()).contains(LeaseEnd.RELEASED);
        election.get().whenStopped().get(5, TimeUnit.SECONDS);
        assertThat(contenders.add().locks().tryAcquire(name, LEASE))
                .as("another process takes the lock at once")
                .isPresent();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
