package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The README's complete test of a fenced write in the in-memory mode ("A fenced write without an engine"), as
 * written: the quick start's {@code @Scheduled @LeaderOnly} sweep, fencing with {@code lease.transactWrite}, which the
 * in-memory mode serves, so the test passes with no engine, no mock and no ERROR. {@link InMemoryFencedWriteTest}
 * shows the same write sent through the client failing the test.
 */
@SpringBootTest(classes = InMemoryFencedWriteSnippetTest.App.class, properties = "locktable.test.in-memory=true")
class InMemoryFencedWriteSnippetTest {

    @Autowired
    Sweeper sweeper;

    @Test
    void sweeps() {
        sweeper.sweep(); // leads at once: the lease checks its held check in memory, and sends nothing
        assertThat(sweeper.tokens())
                .isNotEmpty()
                .allSatisfy(token -> assertThat(token).isPositive());
    }

    /**
     * The README's snippet is this test, as written: each of its lines is in this source, whitespace aside, once this
     * test's differences are undone (its name, and the application class the {@code @SpringBootTest} names, which the
     * README's reader has of their own). Editing one without the other fails.
     */
    @Test
    void theReadmesSnippetIsThisTest() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("### A fenced write without an engine");
        assertThat(section).as("the README's section").isNotNegative();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        List<String> snippet = readme.substring(start, readme.indexOf("```", start))
                .lines()
                .map(InMemoryFencedWriteSnippetTest::normalised)
                .filter(line -> !line.isEmpty())
                .toList();
        String file =
                Files.readString(Path.of("src/test/java/io/locktable/spring/test/InMemoryFencedWriteSnippetTest.java"));
        // up to this check, whose own strings would otherwise match the lines they stand for
        String source = normalised(file.substring(0, file.indexOf("void theReadmesSnippetIsThisTest")))
                        .replace("classes = InMemoryFencedWriteSnippetTest.App.class, ", "")
                        .replace("class InMemoryFencedWriteSnippetTest {", "class SweeperTest {")
                + normalised(file.substring(file.indexOf("static class App {}")));

        assertThat(snippet).as("the snippet's code lines").hasSizeGreaterThan(10);
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
    @Import(Sweeper.class)
    static class App {}

    @Component
    static class Sweeper {
        private final List<Long> tokens = new CopyOnWriteArrayList<>();

        @Scheduled(fixedDelay = 60_000)
        @LeaderOnly("order-sweeper")
        public void sweep() {
            Lease lease = Lease.current().orElseThrow(); // the leader's lease, bound on this thread
            lease.transactWrite(putSweepRecord(lease)); // the held check and the write in one TransactWriteItems
            tokens.add(lease.fencingToken());
        }

        /** This test's own: what the sweep wrote, read through the proxy. */
        List<Long> tokens() {
            return tokens;
        }

        TransactWriteItem putSweepRecord(Lease lease) {
            return TransactWriteItem.builder()
                    .put(Put.builder()
                            .tableName("Sweeps")
                            .item(Map.of(
                                    "pk", AttributeValue.fromS("SWEEP#1"),
                                    "token", AttributeValue.fromN(Long.toString(lease.fencingToken()))))
                            .build())
                    .build();
        }
    }
}
