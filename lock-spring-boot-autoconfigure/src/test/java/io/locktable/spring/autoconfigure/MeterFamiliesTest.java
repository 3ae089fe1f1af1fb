package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.test.LockTableTestMode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What an operator sees in Prometheus with the whole starter, Boot's metrics and Boot's observations (which turn
 * every observation into meters of its own): one family per event, each with a help text, and no series whose outcome
 * is not known yet. The lock table is in memory; another table of its name holds one leadership, so this instance
 * follows it (an acquire that waits) and leads the other.
 */
class MeterFamiliesTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final String led = "families-led-" + UUID.randomUUID();
    private final String followed = "families-followed-" + UUID.randomUUID();
    private final String report = "families-report-" + UUID.randomUUID();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class,
                    LockTableMetricsAutoConfiguration.class,
                    LockTableObservationAutoConfiguration.class,
                    ObservationAutoConfiguration.class,
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class))
            .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
            .withBean(Jobs.class)
            .withBean(Busy.class)
            .withPropertyValues(
                    LockTableTestMode.ON,
                    "jobs.led=" + led,
                    "jobs.followed=" + followed,
                    "jobs.report=" + report,
                    "locktable.lease-duration=" + LEASE.toMillis() + "ms");

    @Test
    void oneFamilyPerEventEachWithAHelpTextAndNoUnknownOutcome() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            LockTable locks = context.getBean(LockTable.class);
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            await().atMost(LEASE.multipliedBy(3)).until(() -> leaders.isLeader(led) && leaders.isLeader(followed));
            try (LockTable other = LockTable.inMemory(locks.tableName()).build()) {
                leaders.yield(followed); // out of the election for two leases: the other table takes it meanwhile
                Lease held = other.tryAcquire(followed, Duration.ofMinutes(1)).orElseThrow();
                Busy busy = context.getBean(Busy.class);
                await().atMost(LEASE.multipliedBy(4)).until(() -> busy.seen(followed)); // this instance waits
                Jobs jobs = context.getBean(Jobs.class);
                jobs.report();
                Lease reportHeld = other.tryAcquire(report, LEASE).orElseThrow();
                jobs.report(); // skipped
                reportHeld.release();

                PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
                // a run's end reaches the meters as an event, on the runs' event thread
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> registry.find("locktable.run").timer() != null);
                String scrape = registry.scrape();

                Map<String, String> help = new TreeMap<>();
                scrape.lines()
                        .filter(line -> line.startsWith("# HELP locktable_"))
                        .forEach(line -> {
                            String rest = line.substring("# HELP ".length());
                            int space = rest.indexOf(' ');
                            help.put(
                                    space < 0 ? rest : rest.substring(0, space),
                                    space < 0 ? "" : rest.substring(space + 1).trim());
                        });
                assertThat(help.keySet())
                        .as("one family per event")
                        .containsExactlyInAnyOrder(
                                "locktable_leases_held",
                                "locktable_lease_fencing_token",
                                "locktable_leader",
                                "locktable_leader_skipped_total",
                                "locktable_acquire_seconds",
                                "locktable_acquire_seconds_max",
                                "locktable_renewals_total",
                                "locktable_leases_lost_total",
                                "locktable_run_seconds",
                                "locktable_run_seconds_max",
                                "locktable_run_skipped_total");
                assertThat(help)
                        .as("a help text for each")
                        .allSatisfy(
                                (family, text) -> assertThat(text).as(family).isNotBlank());
                assertThat(scrape).doesNotContain("outcome=\"unknown\"");
                held.release();
            }
        });
    }

    /** The names this instance found held by another. */
    public static class Busy implements LockTableListener {
        private final Set<String> names = ConcurrentHashMap.newKeySet();

        @Override
        public void onBusy(String name, LockRecord holder) {
            names.add(name);
        }

        boolean seen(String name) {
            return names.contains(name);
        }
    }

    /** A leadership of its own, one followed, and a per-run lock. */
    public static class Jobs {
        @LeaderOnly("${jobs.led}")
        public void lead() {}

        @LeaderOnly("${jobs.followed}")
        public void follow() {}

        @LockedRun("${jobs.report}")
        public void report() {}
    }
}
