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
 * the main README's quick start: a {@code @Scheduled @LeaderOnly} job and a {@code @LockedRun} report in a bean that
 * injects the {@code DynamoDbClient} its writes go through. No engine, no table name, no mock: the context starts,
 * the client is the starter's (built, never called), and both calls run.
 */
@SpringBootTest(classes = LeadEverythingSnippetTest.App.class, properties = "locktable.test.lead-everything=true")
class LeadEverythingSnippetTest {

    @Autowired
    ReportJob job;

    @Autowired
    ApplicationContext context;

    @Test
    void reports() {
        job.report(); // runs: no engine, no lock table, no lock taken
        job.sweep();

        assertThat(job.ran()).containsExactly("report without a lease", "sweep without a lease");
        assertThat(job.client()).isSameAs(context.getBean(DynamoDbClient.class));
        assertThat(job.client().serviceClientConfiguration().region())
                .as("a region even on a machine without AWS settings")
                .isNotNull();
        assertThat(context.getBeanNamesForType(LockTable.class)).isEmpty();
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
            ran.add("sweep " + Lease.current().map(lease -> "with a lease").orElse("without a lease"));
        }

        @LockedRun("sales-report")
        public void report() {
            ran.add("report " + Lease.current().map(lease -> "with a lease").orElse("without a lease"));
        }
    }
}
