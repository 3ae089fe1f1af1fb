package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.actuate.LockTableHealthIndicator;
import io.locktable.spring.actuate.LockTableMetrics;
import io.locktable.spring.actuate.LocksEndpoint;
import io.locktable.spring.test.LockTableTestMode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.MeterNotFoundException;
import io.micrometer.core.instrument.search.Search;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The endpoint, meter binder and health indicator: present with actuator and Micrometer, absent without them (the
 * lock table still works), backing off for beans of the user's; and the meters' tags and life cycle. The lock table
 * is in memory: the meters hear its events, whatever store is behind it.
 */
class ObservabilityAutoConfigurationTest {

    /** How long the meters may take to hear an event of the table, which reaches them on its event thread. */
    private static final Duration WITHIN_EVENTS = Duration.ofSeconds(5);

    /**
     * Long enough that a loaded host cannot lose a lease while a test reads its gauges (a lost ad hoc lease removes
     * its gauge, which read as a missing meter); the renewal check still waits only a third of it.
     */
    private static final Duration LEASE = Duration.ofSeconds(9);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(StarterAutoConfigurations.WITH_ACTUATOR)
            .withPropertyValues(
                    LockTableTestMode.ON,
                    "locktable.lease-duration=" + LEASE.toMillis() + "ms",
                    "management.endpoints.web.exposure.include=locks");

    @Test
    void registersTheEndpointTheMeterBinderAndTheHealthIndicator() {
        runner.run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(LocksEndpoint.class)
                    .hasSingleBean(LockTableMetrics.class)
                    .hasSingleBean(LockTableHealthIndicator.class)
                    .hasBean("locktableHealthIndicator");
            assertThat(context.getBean(LocksEndpoint.class).locks().table())
                    .isEqualTo(context.getBean(LockTable.class).tableName());
            Health health = context.getBean(LockTableHealthIndicator.class).health();
            assertThat(health.getStatus().getCode()).isEqualTo("UP");
        });
    }

    @Test
    void hasNoEndpointUnlessItIsExposed() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class));
        runner.withPropertyValues("management.endpoint.locks.access=NONE")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void hasNoHealthIndicatorWhenItIsSwitchedOff() {
        runner.withPropertyValues("management.health.locktable.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockTableHealthIndicator.class));
    }

    @Test
    void withoutActuatorOnTheClassPathHasNoEndpointNorHealthAndTheLocksStillWork() {
        runner.withClassLoader(
                        new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health"))
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .doesNotHaveBean(LocksEndpoint.class)
                            .doesNotHaveBean(HealthIndicator.class)
                            .hasSingleBean(LockTableMetrics.class);
                    assertLocksWork(context);
                });
    }

    @Test
    void withoutMicrometerOnTheClassPathHasNoMetersAndTheLocksStillWork() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockTableActuatorAutoConfiguration.class,
                        LockTableMetricsAutoConfiguration.class,
                        LockTableHealthAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("io.micrometer"))
                .withPropertyValues(LockTableTestMode.ON, "management.endpoints.web.exposure.include=locks")
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .doesNotHaveBean(LockTableMetrics.class)
                            .doesNotHaveBean(MeterRegistry.class)
                            .hasSingleBean(LocksEndpoint.class)
                            .hasSingleBean(LockTableHealthIndicator.class);
                    assertLocksWork(context);
                });
    }

    @Test
    void backsOffForBeansOfTheUsers() {
        LockTableHealthIndicator health = new LockTableHealthIndicator(() -> null, () -> null);
        LockTableMetrics metrics = new LockTableMetrics(() -> null, () -> null);
        try (LockTable elsewhere = LockTable.inMemory("Other").build()) {
            backsOff(health, metrics, elsewhere);
        }
        runner.withBean(
                        "locktableHealthIndicator",
                        HealthIndicator.class,
                        () -> () -> Health.up().build())
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockTableHealthIndicator.class));
    }

    private void backsOff(LockTableHealthIndicator health, LockTableMetrics metrics, LockTable elsewhere) {
        runner.withBean("myHealth", LockTableHealthIndicator.class, () -> health)
                .withBean("myMetrics", LockTableMetrics.class, () -> metrics)
                .withBean("myEndpoint", LocksEndpoint.class, () -> new LocksEndpoint(elsewhere, null))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).getBean(LockTableHealthIndicator.class).isSameAs(health);
                    assertThat(context).getBean(LockTableMetrics.class).isSameAs(metrics);
                    assertThat(context.getBean(LocksEndpoint.class).locks().table())
                            .isEqualTo("Other");
                });
    }

    @Test
    void tagsLocksThatAreNoLeadershipAsOtherAndRemovesTheGaugeOfAReleasedLock() {
        runner.withBean(Job.class).run(context -> {
            assertThat(context).hasNotFailed();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            LockTable locks = context.getBean(LockTable.class);
            await().atMost(LEASE.multipliedBy(3)).until(() -> leaders.isLeader("ctx-job"));
            Lease leader = leaders.lease("ctx-job").orElseThrow();
            assertThat(registry.get("locktable.leader")
                            .tag("lock", "ctx-job")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            assertThat(registry.get("locktable.lease.fencing.token")
                            .tag("lock", "ctx-job")
                            .gauge()
                            .value())
                    .isEqualTo(leader.fencingToken());

            Lease adHoc = locks.tryAcquire("report-2026-12-02", LEASE).orElseThrow();
            try (LockTable other = LockTable.inMemory(locks.tableName()).build()) {
                Lease elsewhere = other.tryAcquire("report-2026-12-03", LEASE).orElseThrow();
                assertThat(locks.tryAcquire("report-2026-12-03", LEASE)).isEmpty();
                elsewhere.release();
            }
            // the meters hear the table's events on its event thread, just after the calls return
            await().atMost(WITHIN_EVENTS)
                    .ignoreException(MeterNotFoundException.class)
                    .untilAsserted(() -> {
                        assertThat(registry.get("locktable.leases.held").gauge().value())
                                .isEqualTo(2.0);
                        assertThat(registry.get("locktable.lease.fencing.token")
                                        .tag("lock", LockTableMetrics.OTHER)
                                        .gauge()
                                        .value())
                                .isEqualTo(adHoc.fencingToken());
                        assertThat(registry.get("locktable.acquire")
                                        .tags("lock", LockTableMetrics.OTHER, "outcome", "acquired")
                                        .timer()
                                        .count())
                                .isEqualTo(1);
                        assertThat(registry.get("locktable.acquire")
                                        .tags("lock", LockTableMetrics.OTHER, "outcome", "busy")
                                        .timer()
                                        .count())
                                .isEqualTo(1);
                        assertThat(registry.get("locktable.acquire")
                                        .tags("lock", "ctx-job", "outcome", "acquired")
                                        .timer()
                                        .count())
                                .isEqualTo(1);
                        assertThat(Search.in(registry).name("locktable.acquire").timers())
                                .allSatisfy(timer ->
                                        assertThat(timer.getId().getTag("lock")).isIn("ctx-job", "other"));
                    });

            adHoc.release();

            await().atMost(WITHIN_EVENTS)
                    .ignoreException(MeterNotFoundException.class)
                    .untilAsserted(() -> {
                        assertThat(Search.in(registry)
                                        .name("locktable.lease.fencing.token")
                                        .tag("lock", LockTableMetrics.OTHER)
                                        .gauge())
                                .isNull();
                        assertThat(registry.get("locktable.lease.fencing.token")
                                        .tag("lock", "ctx-job")
                                        .gauge())
                                .isNotNull();
                        assertThat(registry.get("locktable.leases.held").gauge().value())
                                .isEqualTo(1.0);
                    });
            await().atMost(LEASE.multipliedBy(2))
                    .until(() -> Optional.ofNullable(Search.in(registry)
                                    .name("locktable.renewals")
                                    .tags("lock", "ctx-job", "outcome", "success")
                                    .counter())
                            .filter(renewals -> renewals.count() >= 1)
                            .isPresent());
            assertThat(Optional.ofNullable(Search.in(registry)
                            .name("locktable.leader.skipped")
                            .tag("lock", "ctx-job")
                            .functionCounter()))
                    .isPresent();
        });
    }

    private static void assertLocksWork(AssertableApplicationContext context) {
        LockTable locks = context.getBean(LockTable.class);
        Lease lease = locks.tryAcquire("works-" + System.nanoTime(), LEASE).orElseThrow();
        assertThat(lease.isHeld()).isTrue();
        lease.release();
        assertThat(context).hasSingleBean(LeaderRunner.class);
    }

    /** A bean with a leadership, so the runner has a name. */
    public static class Job {
        @LeaderOnly("ctx-job")
        public void run() {}
    }
}
