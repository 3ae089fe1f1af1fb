package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.actuate.LocksEndpoint;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code @LeaderOnly} methods whose work runs after they returned, over the in-memory table: they run with the
 * term's lease bound while this instance leads and are skipped otherwise; a step-down and the stop wait for them. Also:
 * reactive jobs as Spring's scheduler runs them, and an application without Reactor. A call cancelled when the term is
 * lost, which needs renewals that fail, is in {@link ReactiveLeaderOnlyFaultsTest}, on the engine.
 */
class ReactiveLeaderOnlyTest {

    /**
     * Runs a call that blocks until the runs in flight end (a stop, a close) on a thread of its own: on the JDK's
     * common pool (the default of {@code runAsync}; a single worker on two cores with Java 25) it would hold the worker
     * that the lock table's futures complete on, and the run it waits for could never start.
     */
    private static final java.util.concurrent.Executor OWN_THREAD =
            task -> new Thread(task, "test-blocking-call").start();

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration WITHIN = Duration.ofSeconds(10);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withPropertyValues(LockTableTestMode.ON, "locktable.lease-duration=" + LEASE.toMillis() + "ms");

    @Test
    void theLeaderRunsWithTheTermsLeaseAndAFollowerIsSkipped() throws Exception {
        runner.withBean(Jobs.class).run(context -> {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(WITHIN).until(() -> leaders.isLeader("sweeper"));
            Lease term = leaders.lease("sweeper").orElseThrow();

            CompletableFuture<Long> mono = jobs.mono().toFuture();
            CompletableFuture<Long> future = jobs.future();
            await().atMost(MARGIN).until(() -> jobs.calls() == 2);
            assertThat(jobs.seen()).as("the term's lease, bound").isSameAs(term);
            jobs.finish().complete("done");
            assertThat(mono.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(term.fencingToken());
            assertThat(future.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(term.fencingToken());
            assertThat(term.isHeld()).as("a call does not end the term").isTrue();

            leaders.yield("sweeper"); // out of the election for two leases
            assertThat(jobs.mono().blockOptional(MARGIN))
                    .as("a follower's subscription completes empty")
                    .isEmpty();
            assertThat(jobs.future().get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                    .as("a follower's future completes with null")
                    .isNull();
            assertThat(jobs.calls()).as("the method was not called").isEqualTo(2);
            assertThat(leaders.skipped("sweeper")).isEqualTo(2);
        });
    }

    @Test
    void aStepDownWaitsForACallInFlight() throws Exception {
        runner.withBean(Jobs.class).run(context -> {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(WITHIN).until(() -> leaders.isLeader("sweeper"));
            CompletableFuture<Long> mono = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.calls() == 1);

            CompletableFuture<Void> stepDown = leaders.yieldAsync("sweeper").toCompletableFuture();
            Thread.sleep(300);
            assertThat(stepDown).as("waiting for the call in flight").isNotDone();
            assertThat(leaders.lease("sweeper")).as("still held meanwhile").isPresent();
            jobs.finish().complete("done");
            assertThat(mono.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                    .as("ran to its end")
                    .isNotNull();
            stepDown.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(leaders.isLeader("sweeper")).isFalse();
        });
    }

    @Test
    void anInterruptedStepDownRequestAnswersAtOnceAndKeepsTheInterrupt() throws Exception {
        runner.withBean(Jobs.class).run(context -> {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(WITHIN).until(() -> leaders.isLeader("sweeper"));
            CompletableFuture<Long> mono = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.calls() == 1);
            LocksEndpoint endpoint = new LocksEndpoint(context.getBean(LockTable.class), leaders);

            Thread.currentThread().interrupt(); // as a server interrupts its request threads when it stops
            long started = System.nanoTime();
            int status;
            boolean interrupted;
            try {
                status = endpoint.stepDown("sweeper").getStatus();
            } finally {
                interrupted = Thread.interrupted();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(took).as("no wait once interrupted").isLessThan(LocksEndpoint.STEP_DOWN_WAIT.dividedBy(2));
            assertThat(status).as("the call in flight still holds the lease").isEqualTo(202);
            assertThat(interrupted).as("the interrupt is kept for the caller").isTrue();
            jobs.finish().complete("done");
            assertThat(mono.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
            await().atMost(MARGIN).until(() -> !leaders.isLeader("sweeper"));
        });
    }

    @Test
    void theStopWaitsForACallInFlight() throws Exception {
        runner.withBean(Jobs.class).run(context -> {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(WITHIN).until(() -> leaders.isLeader("sweeper"));
            CompletableFuture<Long> mono = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.calls() == 1);
            CompletableFuture<Void> closed = CompletableFuture.runAsync(context::close, OWN_THREAD);
            Thread.sleep(300);
            assertThat(closed).as("waiting for the call in flight").isNotDone();
            jobs.finish().complete("done");
            closed.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(mono.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
        });
    }

    /** Spring's scheduler calls a reactive method once and subscribes to its publisher at each tick. */
    @Test
    void scheduledReactiveJobsTakeTheirHoldAtEachTick() {
        runner.withUserConfiguration(Scheduling.class).withBean(Ticks.class).run(context -> {
            assertThat(context).hasNotFailed();
            Ticks ticks = context.getBean(Ticks.class);
            await().atMost(WITHIN)
                    .until(() -> ticks.led().size() >= 3 && ticks.locked().size() >= 3);
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Lease term = leaders.lease("ticker").orElseThrow();
            assertThat(ticks.led())
                    .as("each tick under the term's lease")
                    .allSatisfy(lease -> assertThat(lease).isSameAs(term));
            List<Lease> locked = List.copyOf(ticks.locked());
            assertThat(locked.stream().map(Lease::fencingToken).distinct())
                    .as("each tick under a lock of its own")
                    .hasSize(locked.size());
            await().atMost(MARGIN).until(() -> !locked.get(locked.size() - 1).isHeld());
            assertThat(locked.get(0).end()).contains(LeaseEnd.RELEASED);
        });
    }

    /** Without Reactor, the application starts, and a future is held until it completes. */
    @Test
    void anApplicationWithoutReactorStartsAndHoldsAFuture() throws Exception {
        runner.withClassLoader(new FilteredClassLoader("reactor."))
                .withBean(Futures.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Futures futures = context.getBean(Futures.class);
                    CompletableFuture<String> finish = new CompletableFuture<>();
                    CompletableFuture<Lease> result = futures.run(finish);
                    await().atMost(MARGIN)
                            .alias("called once the lock is taken")
                            .until(() -> futures.seen() != null);
                    Lease lease = futures.seen();
                    assertThat(lease.isHeld())
                            .as("held until the future completes")
                            .isTrue();
                    finish.complete("done");
                    assertThat(result.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                            .isSameAs(lease);
                    assertThat(lease.end()).contains(LeaseEnd.RELEASED);
                });
    }

    /** The jobs: each one's work waits for {@link #finish()}. Read through methods: the bean is a proxy. */
    public static class Jobs {
        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicReference<Lease> seen = new AtomicReference<>();
        private final CompletableFuture<String> finish = new CompletableFuture<>();

        public int calls() {
            return calls.get();
        }

        public Lease seen() {
            return seen.get();
        }

        public CompletableFuture<String> finish() {
            return finish;
        }

        @LeaderOnly("sweeper")
        public Mono<Long> mono() {
            Lease lease = Lease.current().orElseThrow();
            seen.set(lease);
            calls.incrementAndGet();
            return Mono.fromFuture(finish).publishOn(Schedulers.parallel()).map(done -> lease.fencingToken());
        }

        @LeaderOnly("sweeper")
        public CompletableFuture<Long> future() {
            Lease lease = Lease.current().orElseThrow();
            calls.incrementAndGet();
            return finish.thenApply(done -> lease.fencingToken());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {}

    /** Reactive scheduled jobs: each tick records the lease it ran under. */
    public static class Ticks {
        private final List<Lease> led = new CopyOnWriteArrayList<>();
        private final List<Lease> locked = new CopyOnWriteArrayList<>();

        public List<Lease> led() {
            return led;
        }

        public List<Lease> locked() {
            return locked;
        }

        @Scheduled(fixedRate = 100)
        @LeaderOnly("ticker")
        public Mono<Void> lead() {
            return Mono.fromRunnable(() -> led.add(Lease.current().orElseThrow()));
        }

        @Scheduled(fixedDelay = 100)
        @LockedRun("tick")
        public Mono<Void> lock() {
            return Mono.fromRunnable(() -> locked.add(Lease.current().orElseThrow()))
                    .then(Mono.delay(Duration.ofMillis(20)))
                    .then();
        }
    }

    /** A job that returns a future, in an application without Reactor. */
    public static class Futures {
        private final AtomicReference<Lease> seen = new AtomicReference<>();

        public Lease seen() {
            return seen.get();
        }

        @LockedRun("futures")
        public CompletableFuture<Lease> run(CompletableFuture<String> finish) {
            Lease lease = Lease.current().orElseThrow();
            seen.set(lease);
            return finish.thenApply(done -> lease);
        }
    }
}
