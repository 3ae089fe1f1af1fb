package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockTable.Builder#completionExecutor}: the futures of the non-blocking calls complete there, and only there.
 * The executor here holds each completion until the test runs it, so a future done before that did not complete on
 * it. No engine.
 */
class CompletionExecutorTest {

    private static final Duration LEASE = Duration.ofSeconds(5);

    private final String tableName =
            "Completions-" + UUID.randomUUID().toString().substring(0, 8);
    private final ManualLockClock clock = new ManualLockClock();
    private final Queue<Runnable> queued = new ConcurrentLinkedQueue<>();
    private final LockTable locks = LockTable.inMemory(tableName)
            .clock(clock)
            .completionExecutor(queued::add)
            .build();
    private final LockTable other =
            LockTable.inMemory(tableName).clock(new ManualLockClock()).build();
    /** Whether each watched future completed, or the leader's work was called, inside the executor. */
    private final List<Boolean> inside = new CopyOnWriteArrayList<>();

    private boolean running; // the test thread is running a queued completion

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    @Test
    void tryAcquireAsyncCompletesOnTheExecutorWhetherItWonOrFoundTheLockBusy() {
        other.tryAcquire("busy", LEASE).orElseThrow();

        CompletableFuture<Optional<Lease>> won = watched(locks.tryAcquireAsync("free", LEASE));
        CompletableFuture<Optional<Lease>> busy = watched(locks.tryAcquireAsync("busy", LEASE));
        runQueued();

        assertThat(won.join()).isPresent();
        assertThat(busy.join()).isEmpty();
        assertThat(inside).containsExactly(true, true);
    }

    @Test
    void acquireAsyncCompletesOnTheExecutorWithTheLeaseOrTheError() {
        Lease held = other.tryAcquire("held", LEASE).orElseThrow();

        CompletableFuture<Lease> timedOut = watched(locks.acquireAsync("held", LEASE, Duration.ZERO));
        CompletableFuture<Lease> waiting = watched(locks.acquireAsync("held", LEASE));
        runQueued();
        assertThat(waiting).isNotDone();
        held.release();
        clock.advance(Duration.ofSeconds(15)); // past the pause: the next attempt takes the released lock
        runQueued();

        assertThatThrownBy(timedOut::join).hasCauseInstanceOf(TimeoutException.class);
        assertThat(waiting.join().isHeld()).isTrue();
        assertThat(inside).containsExactly(true, true);
    }

    @Test
    void aClosedTableFailsAWaitingAcquireOnTheExecutor() {
        other.tryAcquire("held", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = watched(locks.acquireAsync("held", LEASE));
        runQueued();

        locks.close();
        runQueued();

        assertThatThrownBy(waiting::join).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(inside).containsExactly(true);
    }

    @Test
    void runAsLeaderAsyncCallsTheWorkAndCompletesOnTheExecutor() {
        CompletableFuture<Void> leading = watched(locks.runAsLeaderAsync("leader", LEASE, lease -> {
            inside.add(running);
            return CompletableFuture.completedFuture(null);
        }));
        clock.advance(Duration.ZERO); // the election's first attempt wins
        assertThat(inside).as("the work waits for the executor").isEmpty();
        runQueued();

        assertThat(leading.join()).isNull();
        assertThat(inside).as("work called, then future completed").containsExactly(true, true);
        assertThat(other.tryAcquire("leader", LEASE)).as("released").isPresent();
    }

    @Test
    void aSaturatedCommonPoolDoesNotHoldUpCompletionsOnAnExecutorOfTheirOwn() throws Exception {
        ExecutorService own = Executors.newSingleThreadExecutor(task -> new Thread(task, "own-completions"));
        CountDownLatch unblock = new CountDownLatch(1);
        int parallelism = ForkJoinPool.getCommonPoolParallelism();
        CountDownLatch blocked = new CountDownLatch(parallelism);
        try (LockTable table =
                LockTable.inMemory(tableName + "-own").completionExecutor(own).build()) {
            for (int i = 0; i < parallelism; i++) {
                ForkJoinPool.commonPool().execute(() -> {
                    blocked.countDown();
                    awaitUninterruptibly(unblock); // a caller's task that waits for lock work
                });
            }
            assertThat(blocked.await(5, TimeUnit.SECONDS))
                    .as("every common-pool worker busy")
                    .isTrue();

            Optional<Lease> taken = table.tryAcquireAsync("saturated", LEASE).get(5, TimeUnit.SECONDS);
            Lease lease = table.acquireAsync("waited", LEASE, LEASE).get(5, TimeUnit.SECONDS);
            table.runAsLeaderAsync("led", LEASE, term -> CompletableFuture.completedFuture(null))
                    .get(5, TimeUnit.SECONDS);

            assertThat(taken).isPresent();
            assertThat(lease.isHeld()).isTrue();
            assertThat(unblock.getCount())
                    .as("the common pool stayed saturated")
                    .isOne();
        } finally {
            unblock.countDown();
            own.shutdown();
        }
    }

    @Test
    void byDefaultTheFuturesCompleteOnTheJdksDefaultAsynchronousExecutor() {
        try (LockTable table = LockTable.inMemory(tableName + "-default").build()) {
            assertThat(table.completions()).isSameAs(new CompletableFuture<Void>().defaultExecutor());
            assertThat(table.tryAcquireAsync("default", LEASE).join()).isPresent();
        }
    }

    @Test
    void aCompletionTheExecutorRefusesRunsOnTheJdksDefaultInstead() {
        try (LockTable table = LockTable.inMemory(tableName + "-refusing")
                .completionExecutor(task -> {
                    throw new RejectedExecutionException("shut down");
                })
                .build()) {
            assertThat(table.tryAcquireAsync("refused", LEASE)
                            .orTimeout(5, TimeUnit.SECONDS)
                            .join())
                    .isPresent();
        }
    }

    @Test
    void aNullExecutorIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> LockTable.inMemory(tableName).completionExecutor(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("completionExecutor");
    }

    @Test
    void endSignalsCompleteOnTheEventThreadWhenATimerOrWorkerEndedTheLeaseOrTheElection() throws Exception {
        CountDownLatch listening = new CountDownLatch(1); // each end waits until the test listens for it
        ScriptedLockStore conflicting = new ScriptedLockStore()
                .script(
                        ScriptedLockStore.Op.ACQUIRE,
                        new ScriptedLockStore.Meanwhile(() -> {
                            awaitUninterruptibly(listening);
                            throw new LockItemConflictException("elected", "scripted", "a foreign item");
                        }),
                        1);
        try (LockTable table = LockTable.inMemory(tableName + "-ends")
                        .completionExecutor(queued::add)
                        .listener(new LockTableListener() {
                            @Override
                            public void onReleased(Lease lease) {
                                awaitUninterruptibly(listening); // holds the event thread
                            }
                        })
                        .build();
                LockTable failing = LockTable.Builder.over(conflicting, "pk").build()) {
            Lease delayed = table.tryAcquire("delayed", LEASE).orElseThrow();
            CompletableFuture<String> delayedEnded = delayed.whenEnded().thenApply(end -> threadName());
            delayed.releaseAfter(Duration.ofMillis(50)); // released by a worker
            Leadership leading = table.lead("stepping", LEASE);
            await().atMost(Duration.ofSeconds(5)).until(leading::isLeader);
            CompletableFuture<String> termEnded =
                    leading.lease().orElseThrow().whenEnded().thenApply(end -> threadName());
            CompletableFuture<String> steppedDown = leading.stepDownAsync(LEASE).thenApply(ignored -> threadName());
            Leadership failed = failing.lead("elected", LEASE);
            CompletableFuture<String> stoppedOnError =
                    failed.whenStopped().handle((ignored, error) -> threadName() + " " + error);
            listening.countDown();

            assertThat(delayedEnded.get(5, TimeUnit.SECONDS)).contains("-events-");
            assertThat(termEnded.get(5, TimeUnit.SECONDS)).contains("-events-");
            assertThat(steppedDown.get(5, TimeUnit.SECONDS)).contains("-events-");
            assertThat(stoppedOnError.get(5, TimeUnit.SECONDS))
                    .contains("-events-")
                    .contains(LockItemConflictException.class.getName());
            assertThat(queued).as("not on the completion executor").isEmpty();
            leading.close();
        }
    }

    private static String threadName() {
        return Thread.currentThread().getName();
    }

    /** Records, on completion, whether the future completed inside the executor; it must not be done yet. */
    private <T> CompletableFuture<T> watched(CompletableFuture<T> future) {
        assertThat(future).as("not completed before the executor ran it").isNotDone();
        future.whenComplete((value, error) -> inside.add(running));
        return future;
    }

    private void runQueued() {
        for (Runnable task = queued.poll(); task != null; task = queued.poll()) {
            running = true;
            try {
                task.run();
            } finally {
                running = false;
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // keep the worker busy until the test lets go
            }
        }
    }
}
