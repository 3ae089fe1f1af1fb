package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LeaseThreadLocalAccessor;
import io.locktable.LockTable;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code @LockedRun} methods whose work runs after they returned, over the in-memory table: a {@code Mono}, a {@code
 * Flux} and a {@code CompletableFuture} hold the lock while their work runs (another instance, an in-memory table of
 * the same name, sees it taken), release it when it completes, fails or is cancelled, and are skipped when another
 * instance holds it. Each job's work waits for a future the test completes. Lost leases and acquires under way, which
 * need requests that fail or answer late, are in {@link ReactiveLockedRunFaultsTest}, on the engine.
 */
class ReactiveLockedRunTest {

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

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withBean(Jobs.class)
            .withBean(Events.class)
            .withPropertyValues(LockTableTestMode.ON, "locktable.lease-duration=" + LEASE.toMillis() + "ms");

    /** Another instance: a lock table over the in-memory table of the context's. */
    static LockTable otherInstance(ApplicationContext context) {
        return LockTable.inMemory(context.getBean(LockTable.class).tableName()).build();
    }

    @Test
    void aMonoTakesTheLockWhenSubscribedHoldsItWhileItRunsAndReleasesItWhenItCompletes() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Mono<Long> mono = jobs.mono();
            assertThat(jobs.calls()).as("the method is called when subscribed").isZero();
            try (LockTable other = otherInstance(context)) {
                other.tryAcquire("mono", LEASE).orElseThrow().release(); // not taken before the subscription

                CompletableFuture<Long> result = mono.toFuture();
                await().atMost(MARGIN).until(() -> jobs.seen() != null);
                Lease lease = jobs.seen();
                assertThat(lease.name()).isEqualTo("mono");
                assertThat(jobs.inContext())
                        .as("the lease in the Reactor context")
                        .isSameAs(lease);
                assertThat(other.tryAcquire("mono", LEASE))
                        .as("held while it runs")
                        .isEmpty();
                assertThat(context.getBean(LockedRuns.class).running()).hasSize(1);

                jobs.finish().complete("done");
                assertThat(result.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(lease.fencingToken());
                assertThat(lease.end())
                        .as("released before the completion went on")
                        .contains(LeaseEnd.RELEASED);
                assertThat(other.tryAcquire("mono", LEASE)).isPresent().get().satisfies(Lease::release);
                assertThat(context.getBean(LockedRuns.class).running()).isEmpty();
            }
            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> events.of("mono").size() == 2);
            assertThat(events.of("mono").get(0).kind()).isEqualTo(LockedRunEvent.Kind.STARTED);
            assertThat(events.of("mono").get(1).outcome()).contains(LockedRunEvent.Outcome.COMPLETED);
        });
    }

    @Test
    void aMonoThatFailsOrIsCancelledReleasesTheLock() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<Long> failing = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.seen() != null);
            Lease failed = jobs.takeSeen();
            jobs.finish().completeExceptionally(new IllegalStateException("the job failed"));
            assertThatThrownBy(() -> failing.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                    .hasRootCauseInstanceOf(IllegalStateException.class);
            assertThat(failed.end()).contains(LeaseEnd.RELEASED);

            jobs.newFinish();
            Disposable subscription = jobs.mono().subscribe();
            await().atMost(MARGIN).until(() -> jobs.seen() != null);
            Lease cancelled = jobs.seen();
            assertThat(cancelled.isHeld()).isTrue();
            subscription.dispose();
            await().atMost(MARGIN).until(() -> !cancelled.isHeld());
            assertThat(cancelled.end()).contains(LeaseEnd.RELEASED);
            assertThat(jobs.finish()).as("the work was cancelled").isCancelled();

            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> events.of("mono").size() == 4);
            assertThat(events.of("mono").get(1).outcome()).contains(LockedRunEvent.Outcome.FAILED);
            assertThat(events.of("mono").get(3).outcome()).contains(LockedRunEvent.Outcome.FAILED);
            assertThat(events.of("mono").get(3).failure()).containsInstanceOf(CancellationException.class);
        });
    }

    @Test
    void aSubscriptionIsSkippedWhileAnotherInstanceHoldsTheLock() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockTable other = otherInstance(context);
                    Lease held = other.tryAcquire("mono", LEASE).orElseThrow();
                    Lease heldToo = other.tryAcquire("flux", LEASE).orElseThrow()) {
                assertThat(jobs.mono().blockOptional(MARGIN))
                        .as("completes empty")
                        .isEmpty();
                assertThat(jobs.flux().collectList().block(MARGIN)).isEmpty();
                assertThat(jobs.calls()).as("the method was not called").isZero();
                assertThat(held.isHeld()).isTrue();
            }
            LockedRuns runs = context.getBean(LockedRuns.class);
            assertThat(runs.skipped("mono")).isEqualTo(1);
            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> events.of("mono").size() == 1);
            assertThat(events.of("mono").get(0).skipReason()).contains(LockedRunEvent.SkipReason.BUSY);
        });
    }

    @Test
    void aFluxHoldsTheLockUntilItCompletes() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            List<Long> items = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> done =
                    jobs.flux().doOnNext(items::add).then().toFuture();
            await().atMost(MARGIN).until(() -> items.size() >= 2);
            Lease lease = jobs.seen();
            try (LockTable other = otherInstance(context)) {
                assertThat(other.tryAcquire("flux", LEASE))
                        .as("held while it emits")
                        .isEmpty();
                jobs.finish().complete("done");
                done.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(lease.end()).contains(LeaseEnd.RELEASED);
                assertThat(other.tryAcquire("flux", LEASE)).isPresent().get().satisfies(Lease::release);
            }
            assertThat(items).as("each item its lease's token").containsOnly(lease.fencingToken());

            jobs.newFinish();
            Disposable cancelled = jobs.flux().subscribe();
            await().atMost(MARGIN).until(() -> jobs.seen() != lease);
            Lease second = jobs.seen();
            assertThat(second.isHeld()).isTrue();
            cancelled.dispose();
            await().atMost(MARGIN).until(() -> !second.isHeld());
            assertThat(second.end()).as("released when cancelled").contains(LeaseEnd.RELEASED);
        });
    }

    @Test
    void aShortMonoKeepsTheLockForItsMinHoldWithoutDelayingItsCompletion() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            long start = System.nanoTime();
            Long token = jobs.held().block(MARGIN);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Jobs.MIN_HOLD);
            Lease lease = jobs.seen();
            assertThat(token).isEqualTo(lease.fencingToken());
            try (LockTable other = otherInstance(context)) {
                assertThat(other.tryAcquire("held", LEASE))
                        .as("kept after it completed")
                        .isEmpty();
                await().atMost(Jobs.MIN_HOLD.plus(MARGIN)).until(() -> !lease.isHeld());
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Jobs.MIN_HOLD);
                assertThat(lease.end()).contains(LeaseEnd.RELEASED);
            }
        });
    }

    @Test
    void theStopWaitsForARunInFlight() throws Exception {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<Long> result = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.seen() != null);
            LockedRuns runs = context.getBean(LockedRuns.class);
            AtomicBoolean stopped = new AtomicBoolean();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(
                    () -> {
                        runs.stop();
                        stopped.set(true);
                    },
                    OWN_THREAD);
            Thread.sleep(300);
            assertThat(stopped).as("waiting for the run").isFalse();
            assertThat(jobs.mono().blockOptional(MARGIN))
                    .as("no new run once stopping")
                    .isEmpty();
            jobs.finish().complete("done");
            stop.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(result.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
        });
    }

    /**
     * The jobs: each one's work waits for {@link #finish()}, which a test completes. The tests read them through
     * methods, as the bean is a class-based proxy.
     */
    public static class Jobs {
        static final Duration MIN_HOLD = Duration.ofMillis(1500);

        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicReference<Lease> seen = new AtomicReference<>();
        private final AtomicReference<Object> inContext = new AtomicReference<>();
        private final AtomicReference<CompletableFuture<Long>> returned = new AtomicReference<>();
        private volatile CompletableFuture<String> finish = new CompletableFuture<>();

        public int calls() {
            return calls.get();
        }

        public Lease seen() {
            return seen.get();
        }

        public Lease takeSeen() {
            return seen.getAndSet(null);
        }

        public Object inContext() {
            return inContext.get();
        }

        public CompletableFuture<String> finish() {
            return finish;
        }

        public CompletableFuture<Long> returned() {
            return returned.get();
        }

        public void newFinish() {
            finish = new CompletableFuture<>();
        }

        @LockedRun("mono")
        public Mono<Long> mono() {
            calls.incrementAndGet();
            seen.set(Lease.current().orElseThrow());
            CompletableFuture<String> awaited = finish;
            return Mono.deferContextual(context -> {
                        inContext.set(context.get(LeaseThreadLocalAccessor.KEY));
                        return Mono.fromFuture(awaited);
                    })
                    .publishOn(Schedulers.parallel())
                    .map(done -> seen.get().fencingToken());
        }

        @LockedRun("flux")
        public Flux<Long> flux() {
            calls.incrementAndGet();
            Lease lease = Lease.current().orElseThrow();
            seen.set(lease);
            return Flux.interval(Duration.ofMillis(50))
                    .map(tick -> lease.fencingToken())
                    .takeUntilOther(Mono.fromFuture(finish));
        }

        @LockedRun(name = "held", minHold = "1500ms")
        public Mono<Long> held() {
            return Mono.fromCallable(() -> {
                Lease lease = Lease.current().orElseThrow();
                seen.set(lease);
                return lease.fencingToken();
            });
        }

        @LockedRun("future")
        public CompletableFuture<Long> future() {
            Lease lease = Lease.current().orElseThrow();
            seen.set(lease);
            CompletableFuture<Long> result = finish.thenApply(done -> lease.fencingToken());
            returned.set(result);
            return result;
        }
    }

    /** The run events of the context, in the order delivered. */
    public static class Events {
        final List<LockedRunEvent> all = new CopyOnWriteArrayList<>();

        @EventListener
        public void on(LockedRunEvent event) {
            all.add(event);
        }

        List<LockedRunEvent> of(String name) {
            return all.stream().filter(e -> name.equals(e.name())).toList();
        }
    }
}
