package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The snippet of this module's README and of {@link LockTableTestMode}, as written, for an application shaped like
 * the main README's quick start: a {@code @Scheduled @LeaderOnly} job that fences with {@code
 * Lease.current().orElseThrow()} and a {@code @LockedRun} report, in a bean that injects the {@code DynamoDbClient}
 * its own writes would go through. No engine, no table name, no mock: the context starts, the client is the
 * starter's (built, never called), the locks are in memory, and both calls run with a real lease, the sweep's as
 * soon as the test runs.
 */
@SpringBootTest(classes = LeadEverythingSnippetTest.App.class, properties = "locktable.test.in-memory=true")
class LeadEverythingSnippetTest {

    @Autowired
    ReportJob job;

    @Autowired
    ApplicationContext context;

    @Test
    void reports() {
        job.report(); // runs under its lock, in memory: no engine, no mock
        job.sweep(); // runs: this instance leads at once, with Lease.current() bound

        assertThat(job.ran()).containsExactly("report with lease sales-report", "sweep with lease order-sweeper");
        assertThat(job.client()).isSameAs(context.getBean(DynamoDbClient.class));
        assertThat(job.client().serviceClientConfiguration().region())
                .as("a region even on a machine without AWS settings")
                .isNotNull();
        assertThat(context.getBean(LockTable.class).tableName()).startsWith("locktable-in-memory-");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    @Import(ReportJob.class)
    static class App {}

    /**
     * A bean of the application: its writes go to DynamoDB through the client it injects. It is proxied, so the
     * test reads it through methods, which the proxy hands to the bean.
     */
    static class ReportJob {
        private final DynamoDbClient client;
        private final List<String> ran = new CopyOnWriteArrayList<>();

        ReportJob(DynamoDbClient client) {
            this.client = client;
        }

        DynamoDbClient client() {
            return client;
        }

        List<String> ran() {
            return ran;
        }

        @Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
        @LeaderOnly("order-sweeper")
        public void sweep() {
            ran.add("sweep with lease " + Lease.current().orElseThrow().name());
        }

        @LockedRun("sales-report")
        public void report() {
            ran.add("report with lease " + Lease.current().orElseThrow().name());
        }
    }
}
