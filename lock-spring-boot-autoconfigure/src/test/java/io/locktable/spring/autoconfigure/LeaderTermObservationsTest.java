package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.actuate.DefaultLeaderTermObservationConvention;
import io.locktable.spring.actuate.LeaderTermObservationConvention;
import io.locktable.spring.actuate.LockObservationContext;
import io.locktable.spring.actuate.LockObservationContext.Kind;
import io.locktable.spring.actuate.LockObservations;
import io.locktable.spring.test.LockTableTestMode;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Leader terms as Micrometer observations, with a convention the application may replace. The lock table is in
 * memory: what is observed is the runner's terms, not a request.
 */
class LeaderTermObservationsTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final String job = "observed-term-" + UUID.randomUUID();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockTableObservationAutoConfiguration.class))
            .withBean(Job.class)
            .withPropertyValues(
                    LockTableTestMode.ON, "job.name=" + job, "locktable.lease-duration=" + LEASE.toMillis() + "ms");

    @Test
    void aTermIsObservedFromTheGrantToTheRevocation() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockObservations.class);
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            await().atMost(LEASE.multipliedBy(3)).until(() -> leaders.isLeader(job));
            long token = leaders.lease(job).orElseThrow().fencingToken();
            await().atMost(LEASE)
                    .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo(DefaultLeaderTermObservationConvention.NAME)
                            .that()
                            .hasBeenStarted()
                            .isNotStopped()
                            .hasLowCardinalityKeyValue("lock", job)
                            .hasHighCardinalityKeyValue("fencing.token", Long.toString(token)));

            leaders.yield(job);

            await().atMost(LEASE)
                    .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo(DefaultLeaderTermObservationConvention.NAME)
                            .that()
                            .hasBeenStopped()
                            .hasContextualNameEqualTo("leader term " + job));
        });
    }

    /** Through a real registry and Prometheus: a term is an active long task while it lasts, then a timed one. */
    @Test
    void prometheusShowsATermWhileItLastsAndTimesItWhenItEnds() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(prometheus));
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            await().atMost(LEASE.multipliedBy(3)).until(() -> leaders.isLeader(job));
            await().atMost(LEASE)
                    .untilAsserted(() -> assertThat(prometheus.scrape())
                            .contains("locktable_leader_term_active_seconds_count{lock=\"" + job + "\"} 1"));

            leaders.yield(job);

            await().atMost(LEASE)
                    .untilAsserted(() -> assertThat(prometheus.scrape())
                            .contains("locktable_leader_term_active_seconds_count{lock=\"" + job + "\"} 0")
                            .contains("locktable_leader_term_seconds_count{error=\"none\",lock=\"" + job + "\"} 1"));
        });
    }

    /**
     * The auto-configured table hears acquires with their caller's context: one called inside an observation is its
     * child; the leadership's, which has no caller, is a root.
     */
    @Test
    void theAutoConfiguredTablesAcquireIsAChildOfItsCallersObservationAndALeadershipsARoot() {
        ObservationRegistry registry = ObservationRegistry.create();
        List<LockObservationContext> acquires = new CopyOnWriteArrayList<>();
        registry.observationConfig().observationHandler(new ObservationHandler<LockObservationContext>() {
            @Override
            public void onStop(LockObservationContext context) {
                acquires.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof LockObservationContext lock && lock.kind() == Kind.ACQUIRE;
            }
        });
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            await().atMost(LEASE.multipliedBy(3))
                    .until(() -> context.getBean(LeaderRunner.class).isLeader(job));
            String name = "observed-call-" + UUID.randomUUID();
            Observation request = Observation.start("request", registry);
            try (Observation.Scope scope = request.openScope()) {
                context.getBean(LockTable.class)
                        .tryAcquire(name, LEASE)
                        .orElseThrow()
                        .release();
            }
            request.stop();

            await().atMost(LEASE)
                    .untilAsserted(() -> assertThat(acquires)
                            .as("the leadership's acquire and the call's, each with its parent")
                            .satisfiesExactlyInAnyOrder(
                                    leadership -> {
                                        assertThat(leadership.name()).isEqualTo(job);
                                        assertThat(leadership.getParentObservation())
                                                .isNull();
                                    },
                                    call -> {
                                        assertThat(call.name()).isEqualTo(name);
                                        assertThat(call.getParentObservation()).isSameAs(request);
                                    }));
        });
    }

    @Test
    void aConventionOfTheApplicationReplacesTheDefaultOne() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        LeaderTermObservationConvention custom = new DefaultLeaderTermObservationConvention() {
            @Override
            public String getName() {
                return "orders.leadership";
            }

            @Override
            public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and("team", "orders");
            }
        };
        runner.withBean(ObservationRegistry.class, () -> registry)
                .withBean(LeaderTermObservationConvention.class, () -> custom)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    await().atMost(LEASE.multipliedBy(3))
                            .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                                    .hasObservationWithNameEqualTo("orders.leadership")
                                    .that()
                                    .hasLowCardinalityKeyValue("team", "orders")
                                    .hasLowCardinalityKeyValue("lock", job));
                });
    }

    @Test
    void closingTheContextEndsTheTermsStillObserved() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            await().atMost(LEASE.multipliedBy(3))
                    .until(() -> context.getBean(LeaderRunner.class).isLeader(job));
            await().atMost(LEASE)
                    .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo(DefaultLeaderTermObservationConvention.NAME)
                            .that()
                            .isNotStopped());
            context.close();
            TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo(DefaultLeaderTermObservationConvention.NAME)
                    .that()
                    .hasBeenStopped();
        });
    }

    @Test
    void backsOffWithoutARegistryOrTheObservationApiAndForAnObserverOfTheApplication() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObservations.class));
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObservations.class));
        LockObservations mine =
                new LockObservations(ObservationRegistry.NOOP, null, null, null, () -> null, () -> null);
        runner.withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withBean("mine", LockObservations.class, () -> mine)
                .run(context ->
                        assertThat(context).getBean(LockObservations.class).isSameAs(mine));
    }

    /** A bean with a leadership, so the runner has a name. */
    public static class Job {
        @LeaderOnly("${job.name}")
        public void run() {}
    }
}
