package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.ScriptedLockStore.Meanwhile;
import io.locktable.ScriptedLockStore.MeanwhileThenAnswerLost;
import io.locktable.ScriptedLockStore.Op;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The non-blocking API beyond the contract ({@link InMemoryAsyncContractTest}, {@link EngineAsyncContractTest}):
 * where its code runs, cancelling while waiting and while a write is in flight, a lease lost under a leader's work,
 * the table's close, and waiting without a thread per waiter. Over in-memory items with scripted requests, in real
 * time; no engine.
 */
class AsyncApiTest {

    /** A poll every second while a holder of this lease renews. */
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** Waits on a holder of this lease poll every 10 s: far above what a handover or a close takes. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    private static final long PROMPTLY_SECONDS = 3;

    private final MemoryLockStore.Items items = new MemoryLockStore.Items();
    private final ScriptedLockStore holderStore = new ScriptedLockStore(items);
    private final ScriptedLockStore waiterStore = new ScriptedLockStore(items);
    private final List<LockTable> opened = new ArrayList<>();
    private final String name = "async-" + UUID.randomUUID();

    private LockTable table(ScriptedLockStore store, LockTableListener... listeners) {
        LockTable.Builder builder = LockTable.Builder.over(store, "pk");
        for (LockTableListener listener : listeners) {
            builder.listener(listener);
        }
        LockTable table = builder.build();
        opened.add(table);
        return table;
    }

    @AfterEach
    void closeTables() {
        opened.forEach(LockTable::close);
    }

    @Test
    void tryAcquireAsyncSendsOnAWorkerAndChecksItsArgumentsAtOnceAsTryAcquireDoes() throws Exception {
        LockTable table = table(waiterStore);
        AtomicReference<String> sender = new AtomicReference<>();
        waiterStore.script(
                Op.ACQUIRE,
                new Meanwhile(() -> sender.set(Thread.currentThread().getName())),
                1);

        Lease lease =
                table.tryAcquireAsync(name, LEASE).get(5, TimeUnit.SECONDS).orElseThrow();

        assertThat(lease.isHeld()).isTrue();
        assertThat(sender.get()).startsWith("locktable-Scripted-worker");
        assertThat(table.tryAcquireAsync(name, LEASE).get(5, TimeUnit.SECONDS))
                .as("not reentrant")
                .isEmpty();
        assertThat(catchMessage(() -> table.tryAcquireAsync(name, Duration.ofMillis(10))))
                .isEqualTo(catchMessage(() -> table.tryAcquire(name, Duration.ofMillis(10))))
                .contains("leaseDuration");
        assertThatThrownBy(() -> table.acquireAsync("", LEASE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.acquireAsync(name, LEASE, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> table.acquireAsync(name, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> table.runAsLeaderAsync(name, LEASE, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aReleaseByTheSameTableWakesAnAsyncWaiterAtOnceAndItsStagesRunOffTheTablesThreads() throws Exception {
        List<AcquireOutcome> outcomes = new CopyOnWriteArrayList<>();
        LockTable table = table(waiterStore, new LockTableListener() {
            @Override
            public void onAcquireFinished(
                    String lock, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
                outcomes.add(outcome);
            }
        });
        Lease held = table.tryAcquire(name, LONG_LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = table.acquireAsync(name, LONG_LEASE);
        CompletableFuture<String> thread =
                waiting.thenApply(lease -> Thread.currentThread().getName());
        await().until(() -> waiterStore.sent(Op.ACQUIRE) == 2); // its first attempt was refused: it pauses 10 s
        Thread.sleep(200);
        assertThat(waiting).isNotDone();

        long released = System.nanoTime();
        held.release();

        Lease lease = waiting.get(PROMPTLY_SECONDS, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(PROMPTLY_SECONDS));
        assertThat(lease.fencingToken()).isEqualTo(held.fencingToken() + 1);
        assertThat(thread.get(1, TimeUnit.SECONDS)).doesNotStartWith("locktable-");
        await().until(() -> outcomes.size() == 2);
        assertThat(outcomes).containsExactly(AcquireOutcome.ACQUIRED, AcquireOutcome.ACQUIRED);
    }

    @Test
    void aWaitThatRunsOutCompletesWithATimeoutNamingTheLockTheTableAndTheWait() {
        table(holderStore).tryAcquire(name, LEASE).orElseThrow();

        CompletableFuture<Lease> waiting = table(waiterStore).acquireAsync(name, LEASE, Duration.ofMillis(700));

        assertThatThrownBy(() -> waiting.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("Scripted")
                .hasMessageContaining("PT0.7S");
    }

    @Test
    void cancellingAWaitSendsNoFurtherRequestAndTakesNothing() throws Exception {
        Lease held = table(holderStore).tryAcquire(name, LEASE).orElseThrow();
        LockTable waiter = table(waiterStore);
        CompletableFuture<Lease> waiting = waiter.acquireAsync(name, LEASE);
        await().until(() -> waiterStore.sent(Op.ACQUIRE) == 1); // refused: it pauses a second, then reads
        Thread.sleep(100);

        assertThat(waiting.cancel(true)).isTrue();
        int reads = waiterStore.sent(Op.READ);
        held.release();
        Thread.sleep(LEASE.toMillis());

        assertThat(waiterStore.sent(Op.READ)).isEqualTo(reads);
        assertThat(waiterStore.sent(Op.ACQUIRE)).isEqualTo(1);
        assertThat(items.get(name).owner()).as("nobody took it").isNull();
        assertThat(waiter.heldLeases()).isEmpty();
    }

    @Test
    void aCancelledWaitAndAnInterruptedOneEachReportOneOutcomeCancelledAfterTheirStart() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockTable waiter = table(waiterStore, new LockTableListener() {
            @Override
            public void onAcquireStarted(String lock, long acquireId) {
                heard.add("started");
            }

            @Override
            public void onAcquireFinished(
                    String lock, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
                heard.add(outcome + (waited ? " waited" : ""));
            }
        });
        table(holderStore).tryAcquire(name, LONG_LEASE).orElseThrow();

        CompletableFuture<Lease> waiting = waiter.acquireAsync(name, LONG_LEASE);
        await().until(() -> waiterStore.sent(Op.ACQUIRE) == 1); // refused: it pauses
        assertThat(waiting.cancel(true)).isTrue();
        await().until(() -> heard.size() == 2);

        CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
        Thread blocking = new Thread(() -> {
            try {
                waiter.acquire(name, LONG_LEASE);
                interrupted.complete(null);
            } catch (Throwable e) {
                interrupted.complete(e);
            }
        });
        blocking.start();
        await().until(() -> waiterStore.sent(Op.READ) == 1); // the second refused attempt read first: it pauses
        blocking.interrupt();
        assertThat(interrupted.get(PROMPTLY_SECONDS, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);

        await().until(() -> heard.size() == 4);
        Thread.sleep(200); // nothing more comes
        assertThat(heard)
                .as("each acquire ends once, after its start, even when the caller gave up")
                .containsExactly("started", "CANCELLED waited", "started", "CANCELLED waited");
    }

    @Test
    void cancellingAWaitWhileItsWriteIsInFlightReleasesTheLeaseTheWriteTook() throws Exception {
        assertReleasedAfterCancelInFlight(table -> table.acquireAsync(name, LEASE));
    }

    @Test
    void cancellingATryAcquireAsyncWhileItsWriteIsInFlightReleasesTheLeaseTheWriteTook() throws Exception {
        assertReleasedAfterCancelInFlight(table -> table.tryAcquireAsync(name, LEASE));
    }

    private void assertReleasedAfterCancelInFlight(java.util.function.Function<LockTable, CompletableFuture<?>> call)
            throws Exception {
        LockTable table = table(waiterStore);
        CountDownLatch inFlight = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        waiterStore.script(Op.ACQUIRE, new Meanwhile(() -> awaitCancel(inFlight, cancelled)), 1);
        CompletableFuture<?> future = call.apply(table);
        assertThat(inFlight.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(future.cancel(true)).isTrue();
        cancelled.countDown(); // the write reaches the table now, and is granted

        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS)).until(() -> waiterStore.sent(Op.RELEASE) == 1);
        assertThat(items.get(name).owner())
                .as("released, not held by nobody that knows")
                .isNull();
        assertThat(table.heldLeases()).isEmpty();
        assertThat(table(holderStore).tryAcquire(name, LEASE)).isPresent();
    }

    @Test
    void cancellingAWaitWhileAWriteThatMayHaveAppliedIsInFlightGivesItBack() throws Exception {
        LockTable table = table(waiterStore);
        CountDownLatch inFlight = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        waiterStore.script(Op.ACQUIRE, new MeanwhileThenAnswerLost(() -> awaitCancel(inFlight, cancelled)), 1);
        CompletableFuture<Lease> waiting = table.acquireAsync(name, LEASE);
        assertThat(inFlight.await(5, TimeUnit.SECONDS)).isTrue();

        waiting.cancel(true);
        cancelled.countDown(); // applied, and its answer is lost

        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS)).until(() -> waiterStore.sent(Op.GIVE_BACK) == 1);
        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS))
                .until(() -> items.get(name).owner() == null);
        assertThat(table.heldLeases()).isEmpty();
        assertThat(waiterStore.sent(Op.ACQUIRE))
                .as("no attempt after the cancel")
                .isEqualTo(1);
    }

    @Test
    void aLostLeaseCancelsTheWorksStageAndTheLeaderContendsAgainUntilCancelled() throws Exception {
        String tableName = "AsyncLeader-" + UUID.randomUUID().toString().substring(0, 8);
        LockTable table = LockTable.inMemory(tableName).build();
        opened.add(table);
        List<CompletableFuture<Void>> stages = new CopyOnWriteArrayList<>();
        List<Optional<Lease>> current = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();

        CompletableFuture<Void> leading = table.runAsLeaderAsync(name, Duration.ofSeconds(1), lease -> {
            current.add(Lease.current());
            threads.add(Thread.currentThread().getName());
            CompletableFuture<Void> stage = new CompletableFuture<>(); // work that runs until cancelled
            stages.add(stage);
            return stage;
        });
        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS)).until(() -> stages.size() == 1);
        Lease first = current.get(0).orElseThrow();
        assertThat(threads.get(0)).doesNotStartWith("locktable-");

        MemoryLockStore.Items.named(tableName).delete(name); // an operator deletes the item: the next renewal fails

        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS))
                .until(() -> stages.get(0).isCancelled());
        assertThat(first.whenEnded().get(1, TimeUnit.SECONDS)).isEqualTo(LeaseEnd.LOST);
        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS)).until(() -> stages.size() == 2);
        Lease second = current.get(1).orElseThrow();
        assertThat(second.isHeld()).isTrue();
        assertThat(leading).isNotDone();

        leading.cancel(true);

        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS))
                .until(() -> stages.get(1).isCancelled());
        assertThat(second.whenEnded().get(PROMPTLY_SECONDS, TimeUnit.SECONDS)).isEqualTo(LeaseEnd.RELEASED);
        assertThat(table.heldLeases()).isEmpty();
        assertThat(table.tryAcquire(name, LEASE)).as("handed on").isPresent();
    }

    /**
     * Work that is done at once ends the run while its term is still starting: the run's stop releases the lease
     * before the term has heard how its lease ends, and the run must complete all the same (it hung now and then).
     */
    @Test
    void workThatIsDoneAtOnceEndsTheRunEveryTime() throws Exception {
        LockTable table = LockTable.inMemory(
                        "AsyncDone-" + UUID.randomUUID().toString().substring(0, 8))
                .build();
        opened.add(table);
        for (int run = 0; run < 200; run++) {
            CompletableFuture<Void> leading =
                    table.runAsLeaderAsync(name, LEASE, lease -> CompletableFuture.completedFuture(null));
            assertThat(leading).as("run %d ends", run).succeedsWithin(Duration.ofSeconds(PROMPTLY_SECONDS));
            assertThat(table.heldLeases()).as("run %d released its lease", run).isEmpty();
        }
        Thread blocking = new Thread(() -> {
            for (int run = 0; run < 200; run++) {
                try {
                    table.runAsLeader(name, LEASE, lease -> {});
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        });
        blocking.start();
        blocking.join(Duration.ofSeconds(30).toMillis());
        assertThat(blocking.isAlive())
                .as("200 blocking runs of work done at once returned")
                .isFalse();
    }

    @Test
    void workThatFailsOnItsOwnReleasesTheLeaseAndTheRunFailsTheSameWay() throws Exception {
        LockTable table = table(waiterStore);
        AtomicReference<Lease> term = new AtomicReference<>();

        CompletableFuture<Void> leading = table.runAsLeaderAsync(name, LEASE, lease -> {
            term.set(lease);
            return CompletableFuture.supplyAsync(() -> {
                throw new IllegalStateException("the sweep failed");
            });
        });

        assertThatThrownBy(() -> leading.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the sweep failed");
        assertThat(term.get().whenEnded()).as("released first").isCompletedWithValue(LeaseEnd.RELEASED);
        assertThat(items.get(name).owner()).isNull();
    }

    @Test
    void closingTheTableEndsAsyncWaitersAndLeadersExceptionally() throws Exception {
        table(holderStore).tryAcquire(name, LONG_LEASE).orElseThrow();
        LockTable table = table(waiterStore);
        CompletableFuture<Void> work = new CompletableFuture<>();
        CompletableFuture<Lease> waiting = table.acquireAsync(name, LONG_LEASE);
        CompletableFuture<Void> following =
                table.runAsLeaderAsync(name, LONG_LEASE, lease -> new CompletableFuture<>());
        CompletableFuture<Void> leading = table.runAsLeaderAsync(name + "-free", LONG_LEASE, lease -> work);
        // both contenders were refused (the second one reads first: the table watches the holder), the leader leads
        await().until(() -> waiterStore.sent(Op.ACQUIRE) + waiterStore.sent(Op.READ) >= 3);
        await().until(() -> table.heldLeases().size() == 1);

        table.close();

        for (CompletableFuture<?> future : List.of(waiting, following, leading)) {
            assertThatThrownBy(() -> future.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was closed while");
        }
        await().atMost(Duration.ofSeconds(PROMPTLY_SECONDS)).until(work::isCancelled);
        assertThat(items.get(name + "-free").owner())
                .as("released by the close")
                .isNull();
    }

    @Test
    void aThousandWaitingAcquiresHoldNoThreadEach() throws Exception {
        table(holderStore).tryAcquire(name, LONG_LEASE).orElseThrow();
        AtomicInteger busy = new AtomicInteger();
        LockTable table = table(waiterStore, new LockTableListener() {
            @Override
            public void onBusy(String lock, LockRecord holder) {
                busy.incrementAndGet();
            }
        });
        table.tryAcquire(name, LONG_LEASE); // the table's threads start
        int before = ManagementFactory.getThreadMXBean().getThreadCount();

        List<CompletableFuture<Lease>> waiting = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            waiting.add(table.acquireAsync(name, LONG_LEASE));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> busy.get() >= 1_001); // each was refused: all pause now
        int during = ManagementFactory.getThreadMXBean().getThreadCount();

        assertThat(during - before).as("threads added by 1,000 waiters").isLessThan(50);
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        table.close();
        for (CompletableFuture<Lease> future : waiting) {
            assertThatThrownBy(() -> future.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void anAsyncWaiterTakesOverInVirtualTimeAsTheBlockingOneDoes() throws Exception {
        ManualLockClock holderClock = new ManualLockClock();
        ManualLockClock waiterClock = new ManualLockClock();
        LockTable holder =
                LockTable.Builder.over(holderStore, "pk").clock(holderClock).build();
        LockTable waiter =
                LockTable.Builder.over(waiterStore, "pk").clock(waiterClock).build();
        opened.add(holder);
        opened.add(waiter);
        Lease frozen = holder.tryAcquire(name, LONG_LEASE).orElseThrow();

        CompletableFuture<Lease> waiting = waiter.acquireAsync(name, LONG_LEASE);
        waiterClock.advance(Duration.ofSeconds(29));
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        waiterClock.advance(Duration.ofSeconds(2));

        Lease taken = waiting.get(PROMPTLY_SECONDS, TimeUnit.SECONDS);
        assertThat(taken.tookOver()).isTrue();
        assertThat(taken.fencingToken()).isEqualTo(frozen.fencingToken() + 1);
    }

    private static void awaitCancel(CountDownLatch inFlight, CountDownLatch cancelled) {
        inFlight.countDown();
        try {
            cancelled.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String catchMessage(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            return String.valueOf(e.getMessage());
        }
        throw new AssertionError("did not throw");
    }
}
