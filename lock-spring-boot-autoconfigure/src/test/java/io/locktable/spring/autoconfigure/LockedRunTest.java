package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.LocksEndpoint;
import io.locktable.spring.test.LockTableTestMode;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;

/**
 * One context over the in-memory table: what a {@code @LockedRun} call does when it gets the lock and when another
 * holder has it; its minimum hold; its events, meters and endpoint entry. Another in-memory {@link LockTable} of the
 * same table name plays the other instance. A failed acquire and a lost lease, which need requests that fail, are in
 * {@link LockedRunFaultsTest}, on the engine.
 */
class LockedRunTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(StarterAutoConfigurations.LOCKED_RUNS)
            .withBean(Jobs.class)
            .withBean(Events.class)
            .withPropertyValues(
                    LockTableTestMode.ON,
                    "locktable.lease-duration=" + LEASE.toMillis() + "ms",
                    "management.endpoints.web.exposure.include=locks");

    /** Another instance: a lock table over the in-memory table of the context's. */
    private static LockTable otherInstance(ApplicationContext context) {
        return LockTable.inMemory(context.getBean(LockTable.class).tableName()).build();
    }

    @Test
    void aRunHasItsLeaseBoundReleasesItOnReturnAndIsTimedAndTold() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Lease lease = jobs.bound().orElseThrow();
            assertThat(lease.name()).as("the default name").isEqualTo("Jobs.bound");
            assertThat(lease.isHeld()).as("released when it returned").isFalse();
            assertThat(lease.end()).contains(LeaseEnd.RELEASED);
            assertThat(Lease.current()).as("bound only during the call").isEmpty();

            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> events.of("Jobs.bound").size() == 2);
            assertThat(events.of("Jobs.bound").get(0).kind()).isEqualTo(LockedRunEvent.Kind.STARTED);
            assertThat(events.of("Jobs.bound").get(1)).satisfies(ended -> {
                assertThat(ended.kind()).isEqualTo(LockedRunEvent.Kind.ENDED);
                assertThat(ended.outcome()).contains(LockedRunEvent.Outcome.COMPLETED);
                assertThat(ended.lease()).containsSame(lease);
            });
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("locktable.run")
                            .tag("lock", "Jobs.bound")
                            .tag("outcome", "completed")
                            .timer()
                            .count())
                    .isEqualTo(1);

            assertThatThrownBy(jobs::fails).isInstanceOf(IllegalStateException.class);
            await().atMost(MARGIN)
                    .untilAsserted(() -> assertThat(meters.get("locktable.run")
                                    .tag("lock", "Jobs.fails")
                                    .tag("outcome", "failed")
                                    .timer()
                                    .count())
                            .isEqualTo(1));
        });
    }

    @Test
    void aCallIsSkippedWhileAnotherInstanceHoldsTheLock() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockTable other = otherInstance(context);
                    Lease held = other.tryAcquire("Jobs.bound", LEASE).orElseThrow()) {
                assertThat(jobs.bound()).as("Optional.empty() when skipped").isEmpty();
                assertThat(jobs.counted()).as("the body did not run").isZero();
                assertThat(held.isHeld()).isTrue();
            }
            assertThat(jobs.bound()).isPresent();
            LockedRuns runs = context.getBean(LockedRuns.class);
            assertThat(runs.skipped("Jobs.bound")).isEqualTo(1);
            assertThat(context.getBean(MeterRegistry.class)
                            .get("locktable.run.skipped")
                            .tag("lock", "Jobs.bound")
                            .functionCounter()
                            .count())
                    .isEqualTo(1);
            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> events.of("Jobs.bound").size() == 3);
            assertThat(events.of("Jobs.bound").get(0)).satisfies(skipped -> {
                assertThat(skipped.kind()).isEqualTo(LockedRunEvent.Kind.SKIPPED);
                assertThat(skipped.skipReason()).contains(LockedRunEvent.SkipReason.BUSY);
            });
        });
    }

    @Test
    void aShortRunKeepsTheLockForItsMinHoldWithoutMakingTheCallerWait() {
        runner.run(context -> {
            long start = System.nanoTime();
            Lease lease = context.getBean(Jobs.class).held().orElseThrow();
            Duration call = Duration.ofNanos(System.nanoTime() - start);
            assertThat(call).as("the caller does not wait for the hold").isLessThan(Jobs.MIN_HOLD);
            try (LockTable other = otherInstance(context)) {
                assertThat(other.tryAcquire("held", LEASE))
                        .as("kept after the run returned")
                        .isEmpty();
                assertThat(lease.isHeld()).isTrue();
                await().atMost(Jobs.MIN_HOLD.plus(MARGIN)).until(() -> !lease.isHeld());
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("released at the end of its minHold, renewed until then")
                        .isGreaterThanOrEqualTo(Jobs.MIN_HOLD);
                assertThat(lease.end()).contains(LeaseEnd.RELEASED);
                assertThat(other.tryAcquire("held", LEASE)).isPresent();
            }
        });
    }

    @Test
    void aNameFromTheArgumentsIsMeteredUnderItsTemplateAndShownAsEvaluated() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            for (String region : List.of("eu", "us", "ap")) {
                assertThat(jobs.report(region).orElseThrow().name()).isEqualTo("report-" + region);
            }
            try (LockTable other = otherInstance(context);
                    Lease held = other.tryAcquire("report-eu", LEASE).orElseThrow()) {
                assertThat(jobs.report("eu"))
                        .as("held by the other instance: skipped")
                        .isEmpty();
                assertThat(held.isHeld()).isTrue();
            }
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Boolean> running =
                    CompletableFuture.supplyAsync(() -> jobs.inRegion("eu", entered, release));
            assertThat(entered.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            try {
                LocksEndpoint.LocksDescriptor shown =
                        context.getBean(LocksEndpoint.class).locks();
                assertThat(shown.runs())
                        .extracting(LocksEndpoint.RunDescriptor::name)
                        .containsExactly("region-eu");
                assertThat(shown.leases())
                        .extracting(LocksEndpoint.LeaseDescriptor::name)
                        .containsExactly("region-eu");
            } finally {
                release.countDown();
            }
            assertThat(running.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            await().atMost(MARGIN)
                    .untilAsserted(() -> assertThat(meters.get("locktable.run")
                                    .tag("lock", "report-#{#region}")
                                    .tag("outcome", "completed")
                                    .timer()
                                    .count())
                            .as("three runs under three locks, one series")
                            .isEqualTo(3));
            await().atMost(MARGIN)
                    .untilAsserted(() -> assertThat(meters.get("locktable.acquire")
                                    .tag("lock", "report-#{#region}")
                                    .tag("outcome", "busy")
                                    .timer()
                                    .count())
                            .isEqualTo(1));
            assertThat(meters.get("locktable.acquire")
                            .tag("lock", "report-#{#region}")
                            .tag("outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(3);
            assertThat(meters.get("locktable.run.skipped")
                            .tag("lock", "report-#{#region}")
                            .functionCounter()
                            .count())
                    .isEqualTo(1);
            await().atMost(MARGIN)
                    .untilAsserted(() -> assertThat(meters.get("locktable.run")
                                    .tag("lock", "region-#{#region}")
                                    .timer()
                                    .count())
                            .isEqualTo(1));
            assertThat(meters.getMeters().stream()
                            .map(meter -> meter.getId().getTag("lock"))
                            .filter(Objects::nonNull)
                            .distinct())
                    .as("no series per evaluated name")
                    .doesNotContain("report-eu", "report-us", "report-ap", "region-eu")
                    .contains("report-#{#region}", "region-#{#region}");
        });
    }

    /** The jobs: public methods of a bean, each with its own lock. */
    public static class Jobs {
        static final Duration MIN_HOLD = Duration.ofMillis(1500);

        private final AtomicReference<Lease> seen = new AtomicReference<>();
        private volatile int calls;

        @LockedRun
        public Optional<Lease> bound() {
            calls++;
            return Lease.current();
        }

        public int counted() {
            return calls;
        }

        public Lease seen() {
            return seen.get();
        }

        @LockedRun
        public void fails() {
            throw new IllegalStateException("the job failed");
        }

        @LockedRun(name = "held", minHold = "1500ms")
        public Optional<Lease> held() {
            return Lease.current();
        }

        @LockedRun("report-#{#region}")
        public Optional<Lease> report(String region) {
            return Lease.current();
        }

        /** Tells it entered, waits until released; returns whether its lease was still held. */
        @LockedRun("region-#{#region}")
        public Boolean inRegion(String region, CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Lease.current().orElseThrow().isHeld();
        }

        /** Blocks until released, ignoring interruption; returns whether it was interrupted or still held. */
        @LockedRun("blocks")
        public Boolean blocks(CountDownLatch entered, CountDownLatch release) {
            seen.set(Lease.current().orElseThrow());
            entered.countDown();
            boolean interrupted = false;
            while (true) {
                try {
                    release.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return interrupted || Lease.current().orElseThrow().isHeld();
        }
    }

    /** The run events of the context, in the order delivered: one listener hears them all. */
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
