package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.autoconfigure.ReactiveLockedRunTest.Events;
import io.locktable.spring.autoconfigure.ReactiveLockedRunTest.Jobs;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code @LockedRun} methods whose work runs after they returned, on the real engine with its requests failed or
 * delayed on purpose: a {@code Mono} and a {@code CompletableFuture} are cut short when their lease is lost; an
 * acquire under way neither blocks a non-blocking subscriber nor, once cancelled, leaves the lock taken; the stop waits
 * for it. The jobs are {@link ReactiveLockedRunTest}'s; the rest of it runs over the in-memory table.
 */
@DynamoDbEngineTest
class ReactiveLockedRunFaultsTest {

    /**
     * Runs a call that blocks until the runs in flight end (a stop, a close) on a thread of its own: on the JDK's
     * common pool (the default of {@code runAsync}; a single worker on two cores with Java 25) it would hold the worker
     * that the lock table's futures complete on, and the run it waits for could never start.
     */
    private static final java.util.concurrent.Executor OWN_THREAD =
            task -> new Thread(task, "test-blocking-call").start();

    /** Three seconds, not the least lease of one: under a CI load of 10 and more an answer took longer than a second. */
    private static final Duration LEASE = Duration.ofSeconds(3);

    private static final Duration MARGIN = Duration.ofSeconds(5);
    /** How long a delayed answer of the engine takes: less than a lease, or the lease it brings has ended. */
    private static final Duration SLOW = Duration.ofMillis(500);

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final FaultInjector faults = new FaultInjector();
    private final ApplicationContextRunner runner;

    ReactiveLockedRunFaultsTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LockedRunAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(faults)))
                .withBean(Jobs.class)
                .withBean(Events.class)
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=" + LEASE.toMillis() + "ms");
    }

    private LockTable otherInstance() {
        return LockTable.builder(engine.client(), table.name(), table.partitionKey())
                .sortKey(table.sortKey().orElseThrow())
                .build();
    }

    /**
     * Takes over and releases a lock whose lease this test let run out, which its item still shows held for a lease:
     * the tests share one table, and the next one must find the lock free.
     */
    private void freeAfterLoss(String name) throws Exception {
        try (LockTable other = otherInstance()) {
            other.acquire(name, LEASE, LEASE.plus(LEASE).plus(MARGIN)).release();
        }
    }

    @Test
    void aMonoWhoseLeaseIsLostIsCancelledAndToldLost() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<Long> result = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.seen() != null);
            Lease lease = jobs.seen();
            faults.blackhole("UpdateItem"); // no renewal reaches the table: the lease runs out
            try {
                assertThat(result.get(LEASE.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS))
                        .as("the subscription completes, empty")
                        .isNull();
                assertThat(jobs.finish()).as("the work was cancelled").isCancelled();
                assertThat(lease.end()).contains(LeaseEnd.EXPIRED);
                Events events = context.getBean(Events.class);
                await().atMost(MARGIN).until(() -> events.of("mono").size() == 3);
                assertThat(events.of("mono").get(1).kind()).isEqualTo(LockedRunEvent.Kind.LOST);
                assertThat(events.of("mono").get(2).outcome()).contains(LockedRunEvent.Outcome.LOST);
            } finally {
                faults.clear();
                freeAfterLoss("mono");
            }
        });
    }

    @Test
    void aFutureHoldsTheLockUntilItCompletesIsSkippedWhenBusyAndCancelledWhenTheLeaseIsLost() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<Long> result = jobs.future();
            await().atMost(MARGIN).alias("called once the lock is taken").until(() -> jobs.seen() != null);
            Lease lease = jobs.seen();
            assertThat(lease.name()).as("taken when called").isEqualTo("future");
            try (LockTable other = otherInstance()) {
                assertThat(other.tryAcquire("future", LEASE))
                        .as("held until it completes")
                        .isEmpty();
                assertThat(jobs.future().get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                        .as("busy: a future of null")
                        .isNull();
                jobs.finish().complete("done");
                assertThat(result.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(lease.fencingToken());
                assertThat(lease.end())
                        .as("released before the caller's future completed")
                        .contains(LeaseEnd.RELEASED);
                assertThat(other.tryAcquire("future", LEASE)).isPresent().get().satisfies(Lease::release);
            }

            jobs.newFinish();
            CompletableFuture<Long> losing = jobs.future();
            await().atMost(MARGIN).until(() -> jobs.seen() != lease);
            Lease lost = jobs.seen();
            faults.blackhole("UpdateItem");
            try {
                assertThatThrownBy(() -> losing.get(LEASE.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS))
                        .isInstanceOfAny(CancellationException.class, ExecutionException.class);
                assertThat(jobs.returned())
                        .as("the method\'s future was cancelled")
                        .isCancelled();
                assertThat(lost.end()).contains(LeaseEnd.EXPIRED);
            } finally {
                faults.clear();
                freeAfterLoss("future");
            }
            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> events.of("future").size() == 6);
            assertThat(events.of("future"))
                    .extracting(LockedRunEvent::kind)
                    .containsExactly(
                            LockedRunEvent.Kind.STARTED,
                            LockedRunEvent.Kind.SKIPPED,
                            LockedRunEvent.Kind.ENDED,
                            LockedRunEvent.Kind.STARTED,
                            LockedRunEvent.Kind.LOST,
                            LockedRunEvent.Kind.ENDED);
            assertThat(events.of("future").get(5).outcome()).contains(LockedRunEvent.Outcome.LOST);
        });
    }

    @Test
    void subscribingOnANonBlockingThreadDoesNotWaitForTheAcquire() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            faults.delayReply("UpdateItem", SLOW, 1);
            try {
                CompletableFuture<Long> subscribed = new CompletableFuture<>();
                AtomicReference<Duration> took = new AtomicReference<>();
                Schedulers.parallel().schedule(() -> {
                    long start = System.nanoTime();
                    jobs.mono().subscribe(subscribed::complete, subscribed::completeExceptionally);
                    took.set(Duration.ofNanos(System.nanoTime() - start));
                });
                await().atMost(MARGIN).until(() -> took.get() != null);
                assertThat(took.get())
                        .as("the subscribing thread, Reactor's parallel one, does not wait for the answer")
                        .isLessThan(SLOW.dividedBy(2));
                assertThat(jobs.calls())
                        .as("the method is called once the lock is taken")
                        .isZero();

                await().atMost(SLOW.plus(MARGIN)).until(() -> jobs.seen() != null);
                assertThat(jobs.seen().isHeld()).isTrue();
                jobs.finish().complete("done");
                assertThat(subscribed.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                        .isEqualTo(jobs.seen().fencingToken());
                assertThat(jobs.seen().end()).contains(LeaseEnd.RELEASED);
            } finally {
                faults.clear();
            }
        });
    }

    @Test
    void aSubscriptionCancelledWhileItsAcquireIsUnderWayLeavesTheLockFree() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockedRuns runs = context.getBean(LockedRuns.class);
            try (LockTable other = otherInstance()) {
                long before = other.read("mono").map(LockRecord::fencingToken).orElse(0L);
                CountDownLatch sent = new CountDownLatch(1);
                faults.beforeSend("UpdateItem", sent::countDown, 1).delayReply("UpdateItem", SLOW, 1);
                try {
                    Disposable subscription = jobs.mono().subscribe();
                    assertThat(sent.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                            .isTrue();
                    subscription.dispose(); // the write is on its way, and applies

                    await().atMost(SLOW.plus(MARGIN))
                            .alias("the lease won for the cancelled subscription is released")
                            .until(() -> other.read("mono")
                                    .filter(item -> item.fencingToken() > before && !item.isHeld())
                                    .isPresent());
                } finally {
                    faults.clear();
                }
                assertThat(jobs.calls()).as("the method was never called").isZero();
                assertThat(runs.running()).isEmpty();
                assertThat(context.getBean(LockTable.class).heldLeases()).isEmpty();
                assertThat(other.tryAcquire("mono", LEASE)).isPresent().get().satisfies(Lease::release);

                long start = System.nanoTime();
                runs.stop();
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("nothing left in flight")
                        .isLessThan(MARGIN);
            }
            assertThat(context.getBean(Events.class).of("mono"))
                    .as("no run started")
                    .isEmpty();
        });
    }

    @Test
    void aFutureCancelledWhileItsAcquireIsUnderWayNeverCallsTheMethodAndLeavesTheLockFree() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockTable other = otherInstance()) {
                long before = other.read("future").map(LockRecord::fencingToken).orElse(0L);
                CountDownLatch sent = new CountDownLatch(1);
                faults.beforeSend("UpdateItem", sent::countDown, 1).delayReply("UpdateItem", SLOW, 1);
                try {
                    CompletableFuture<Long> call = jobs.future();
                    assertThat(call)
                            .as("the call returns before its lock is taken")
                            .isNotDone();
                    assertThat(sent.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                            .isTrue();
                    assertThat(call.cancel(true)).isTrue();

                    await().atMost(SLOW.plus(MARGIN))
                            .alias("the lease won for the cancelled call is released")
                            .until(() -> other.read("future")
                                    .filter(item -> item.fencingToken() > before && !item.isHeld())
                                    .isPresent());
                } finally {
                    faults.clear();
                }
                assertThat(jobs.seen()).as("the method was never called").isNull();
                assertThat(context.getBean(LockedRuns.class).running()).isEmpty();
                assertThat(context.getBean(LockTable.class).heldLeases()).isEmpty();
            }
        });
    }

    @Test
    void theStopWaitsForARunWhoseAcquireIsUnderWay() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockedRuns runs = context.getBean(LockedRuns.class);
            CountDownLatch sent = new CountDownLatch(1);
            faults.beforeSend("UpdateItem", sent::countDown, 1).delayReply("UpdateItem", SLOW, 1);
            CompletableFuture<Void> stop;
            AtomicBoolean stopped = new AtomicBoolean();
            CompletableFuture<Long> result;
            try {
                result = jobs.mono().toFuture();
                assertThat(sent.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                stop = CompletableFuture.runAsync(
                        () -> {
                            runs.stop();
                            stopped.set(true);
                        },
                        OWN_THREAD);
                await().atMost(SLOW.plus(MARGIN))
                        .alias("the run admitted before the stop starts")
                        .until(() -> jobs.seen() != null);
            } finally {
                faults.clear();
            }
            Thread.sleep(300);
            assertThat(stopped).as("waiting for the run").isFalse();
            jobs.finish().complete("done");
            stop.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(result.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                    .isEqualTo(jobs.seen().fencingToken());
        });
    }
}
