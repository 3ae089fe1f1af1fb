package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.test.LockTableTestMode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code locktable.*} meters as Prometheus renders them: their names, and the series that exist from the start.
 * The lock table is in memory; another in-memory table of its name plays the other instance.
 */
class LockTableMetricsPrometheusTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final ApplicationContextRunner runner;

    @AutoClose("shutdownNow")
    private final ExecutorService waiters = Executors.newCachedThreadPool();

    /** The leadership of this test's context: a name of its own, which no other test's instance may still hold. */
    private final String job = "prom-job-" + UUID.randomUUID();

    LockTableMetricsPrometheusTest() {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockTableMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withBean(Job.class)
                .withPropertyValues(
                        LockTableTestMode.ON, "job.name=" + job, "locktable.lease-duration=" + LEASE.toMillis() + "ms");
    }

    /** Another instance: a lock table over the in-memory table of the context's. */
    private static LockTable other(LockTable locks) {
        return LockTable.inMemory(locks.tableName()).build();
    }

    @Test
    void namesRenderWithoutAUnitSuffixAndLossCountersStartAtZero() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();

            assertThat(scrape).contains("\nlocktable_leases_held ").doesNotContain("locktable_leases_held_leases");
            for (String lock : new String[] {job, "other"}) {
                assertThat(scrape)
                        .contains("locktable_leases_lost_total{lock=\"" + lock + "\",reason=\"lost\"} 0.0")
                        .contains("locktable_leases_lost_total{lock=\"" + lock + "\",reason=\"expired\"} 0.0")
                        .contains("locktable_renewals_total{lock=\"" + lock + "\",outcome=\"failure\"} 0.0");
            }
            assertThat(scrape).contains("locktable_leader{lock=\"" + job + "\"}");
        });
    }

    @Test
    void aWaitIsTimedApartFromAcquiresThatDidNotWait() {
        AtomicInteger busy = new AtomicInteger();
        LockTableListener busyCounter = new LockTableListener() {
            @Override
            public void onBusy(String name, LockRecord holder) {
                busy.incrementAndGet();
            }
        };
        runner.withBean(LockTableListener.class, () -> busyCounter).run(context -> {
            assertThat(context).hasNotFailed();
            LockTable locks = context.getBean(LockTable.class);
            PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
            String name = "waited-" + UUID.randomUUID();
            try (LockTable other = other(locks)) {
                Lease held = other.tryAcquire(name, LEASE).orElseThrow();
                assertThat(locks.tryAcquire(name, LEASE)).isEmpty();
                CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return locks.acquire(name, LEASE, Duration.ofSeconds(20));
                            } catch (InterruptedException | TimeoutException e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        waiters);
                await().atMost(Duration.ofSeconds(5)).until(() -> busy.get() >= 2); // the waiter found it held
                held.release();
                waiting.join().release();
            }
            await().atMost(LEASE.multipliedBy(3))
                    .until(() -> context.getBean(LeaderRunner.class).isLeader(job));

            String scrape = registry.scrape();
            assertThat(scrape)
                    .contains("locktable_acquire_wait_seconds_count{lock=\"other\",outcome=\"acquired\"} 1")
                    .contains("locktable_acquire_seconds_count{lock=\"other\",outcome=\"busy\"} 1")
                    .doesNotContain("locktable_acquire_seconds_count{lock=\"other\",outcome=\"acquired\"}")
                    .contains("locktable_acquire_seconds_count{lock=\"" + job + "\",outcome=\"acquired\"} 1");
        });
    }

    /** A bean with a leadership, so the runner has a name. */
    public static class Job {
        @LeaderOnly("${job.name}")
        public void run() {}
    }
}
