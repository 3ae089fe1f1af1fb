package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * The README's snippet ("Without any engine") is this test, as written: each of its lines is in this source,
     * whitespace aside, once this test's two differences are undone (its name, and the application class the
     * {@code @SpringBootTest} names, which the README's reader has of their own). Editing one without the other fails.
     */
    @Test
    void theReadmesSnippetIsThisTest() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("## Without any engine");
        assertThat(section).as("the README's section").isNotNegative();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        List<String> snippet = readme.substring(start, readme.indexOf("```", start))
                .lines()
                .map(LeadEverythingSnippetTest::normalised)
                .filter(line -> !line.isEmpty())
                .toList();
        String file =
                Files.readString(Path.of("src/test/java/io/locktable/spring/test/LeadEverythingSnippetTest.java"));
        // up to this check, whose own strings would otherwise match the lines they stand for
        String source = normalised(file.substring(0, file.indexOf("void theReadmesSnippetIsThisTest")))
                .replace("classes = LeadEverythingSnippetTest.App.class, ", "")
                .replace("class LeadEverythingSnippetTest {", "class ReportJobTest {");

        assertThat(snippet).as("the snippet's code lines").hasSizeGreaterThan(5);
        assertThat(snippet)
                .allSatisfy(line -> assertThat(source)
                        .as("README.md's line of the snippet in this test's source")
                        .contains(line));
    }

    /** Each run of whitespace, line ends included, as one space. */
    private static String normalised(String text) {
        return text.strip().replaceAll("\\s+", " ");
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
