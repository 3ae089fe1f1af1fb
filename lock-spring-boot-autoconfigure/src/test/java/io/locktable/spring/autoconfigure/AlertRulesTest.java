package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * The alert rules of {@code docs/observability.md}, read from the file, evaluated ({@link PromQl}) over scrapes of a
 * real application: the starter's meters in a {@link PrometheusMeterRegistry}, its lock table on the engine, faults
 * injected into its client. Each rule is quiet before its case and fires in it. The scrapes are placed on a time line
 * of the test's own (one every 15 s, as Prometheus would take them), so no assertion depends on how long anything took.
 */
@DynamoDbEngineTest
class AlertRulesTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration WITHIN = LEASE.multipliedBy(4);
    private static final long SCRAPE_INTERVAL = 15;

    private final FaultInjector faults = new FaultInjector();
    private final String job = "alerted-" + UUID.randomUUID();
    private final DynamoDbEngine engine;
    private final TestTable table;
    private final ApplicationContextRunner runner;
    private final PromQl prometheus = new PromQl();
    private long now;

    AlertRulesTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockTableMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(faults)))
                .withBean(Job.class)
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=" + LEASE.toMillis() + "ms",
                        "job.name=" + job);
    }

    /** The rules of the documentation's alerting section, by alert name, as written there. */
    static Map<String, String> documentedRules() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "observability.md"));
        int section = doc.indexOf("\n## Alerting");
        assertThat(section).as("docs/observability.md has an alerting section").isPositive();
        int start = doc.indexOf("```yaml\n", section) + "```yaml\n".length();
        String yaml = doc.substring(start, doc.indexOf("```", start));
        Map<String, String> rules = new LinkedHashMap<>();
        String alert = null;
        for (String line : yaml.lines().map(String::trim).toList()) {
            if (line.startsWith("- alert:")) {
                alert = line.substring("- alert:".length()).trim();
            } else if (line.startsWith("expr:")) {
                rules.put(alert, line.substring("expr:".length()).trim());
            }
        }
        return rules;
    }

    @Test
    void eachDocumentedRuleIsQuietBeforeItsCaseAndFiresInIt() throws IOException {
        Map<String, String> rules = documentedRules();
        assertThat(rules).containsOnlyKeys("LockTableNoLeader", "LockTableRenewalsFailing", "LockTableLeaseLost");
        String noLeader = rules.get("LockTableNoLeader");
        String renewalsFailing = rules.get("LockTableRenewalsFailing");
        String leaseLost = rules.get("LockTableLeaseLost");

        LockTable.Builder another = LockTable.builder(engine.client(), table.name(), table.partitionKey());
        table.sortKey().ifPresent(another::sortKey);
        try (LockTable holder = another.build()) {
            Lease held = holder.tryAcquire(job, LEASE).orElseThrow(); // before the app starts
            runner.run(context -> {
                assertThat(context).hasNotFailed();
                PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
                LeaderRunner leaders = context.getBean(LeaderRunner.class);

                // a holder that is no instance keeps the lock: no instance leads
                scrape(registry);
                scrape(registry);
                assertThat(leaders.isLeader(job)).isFalse();
                assertThat(prometheus.evaluate(noLeader)).containsOnlyKeys(Map.of("lock", job));
                assertThat(prometheus.evaluate(renewalsFailing)).isEmpty();
                assertThat(prometheus.evaluate(leaseLost)).isEmpty();

                // the holder lets go: this instance leads, renewing
                held.release();
                await().atMost(WITHIN).until(() -> leaders.isLeader(job));
                await().atMost(WITHIN).until(() -> renewals(registry, "success") >= 1);
                scrape(registry);
                scrape(registry);
                assertThat(prometheus.evaluate(noLeader)).isEmpty();
                assertThat(prometheus.evaluate(renewalsFailing)).isEmpty();
                assertThat(prometheus.evaluate(leaseLost)).isEmpty();

                // renewals are refused (the role lost its permission for a moment), then get through again
                faults.failWith(
                        "UpdateItem",
                        () -> FaultInjector.engineError(
                                DynamoDbException.builder(), 400, "AccessDeniedException", "not authorized"),
                        2);
                await().atMost(WITHIN).until(() -> renewals(registry, "failure") >= 2);
                scrape(registry);
                assertThat(prometheus.evaluate(renewalsFailing)).containsOnlyKeys(Map.of("lock", job));

                // a quarter of an hour later, whatever that did to the lease, it leads again and nothing fails
                now += Duration.ofMinutes(15).toSeconds();
                await().atMost(WITHIN).until(() -> leaders.isLeader(job));
                scrape(registry);
                scrape(registry);
                assertThat(prometheus.evaluate(noLeader)).isEmpty();
                assertThat(prometheus.evaluate(renewalsFailing)).isEmpty();
                assertThat(prometheus.evaluate(leaseLost)).isEmpty();

                // the item is deleted under the leader: its next renewal finds the lease lost
                engine.client()
                        .deleteItem(request -> request.tableName(table.name()).key(key(job)));
                await().atMost(WITHIN).until(() -> lost(registry) >= 1);
                scrape(registry);
                assertThat(prometheus.evaluate(leaseLost)).containsOnlyKeys(Map.of("lock", job, "reason", "lost"));
            });
        }
    }

    /** The rule reader sees every rule's expression whole: one line each, as the evaluator reads it. */
    @Test
    void theDocumentedRulesAreReadWhole() throws IOException {
        assertThat(documentedRules().values())
                .allSatisfy(expression -> assertThat(expression)
                        .isNotBlank()
                        .doesNotEndWith("(")
                        .satisfies(e -> assertThat(
                                        e.chars().filter(c -> c == '(').count())
                                .isEqualTo(e.chars().filter(c -> c == ')').count())));
        assertThat(List.copyOf(documentedRules().keySet())).hasSize(3);
    }

    private void scrape(PrometheusMeterRegistry registry) {
        now += SCRAPE_INTERVAL;
        prometheus.scrape(now, registry.scrape());
    }

    private double renewals(MeterRegistry registry, String outcome) {
        return registry.get("locktable.renewals")
                .tag("lock", job)
                .tag("outcome", outcome)
                .counter()
                .count();
    }

    private double lost(MeterRegistry registry) {
        return registry.get("locktable.leases.lost")
                .tag("lock", job)
                .tag("reason", "lost")
                .counter()
                .count();
    }

    private Map<String, AttributeValue> key(String name) {
        Map<String, AttributeValue> key = new HashMap<>();
        key.put(table.partitionKey(), AttributeValue.fromS("LOCK#" + name));
        table.sortKey().ifPresent(sortKey -> key.put(sortKey, AttributeValue.fromS("LOCK")));
        return key;
    }

    /** A leadership, so the runner has a name. */
    public static class Job {
        @LeaderOnly("${job.name}")
        public void run() {}
    }
}
