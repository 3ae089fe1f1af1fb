package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * An endpoint where nothing answers: the starter says so in one WARN line with the cause and what to check, at
 * startup and at a {@code @LockedRun}'s first failed acquire, instead of the SDK's stack with a suppressed exception
 * per attempt (254 lines); the stack is kept at DEBUG, which this module's test logging shows. A real client with the
 * SDK's default retries, of a loopback port where nothing listens: no engine.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnreachableEndpointLogTest {

    /** The start of a log record in this module's test logging (logback-test.xml): {@code 12:34:56.789 WARN ...}. */
    private static final Pattern RECORD = Pattern.compile("^\\d{2}:\\d{2}:\\d{2}\\.\\d{3} ");

    @Test
    void theStartupCheckOfAnUnreachableTableIsOneWarnLineWithTheCauseAndTheFix(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockTableAutoConfiguration.class))
                .withBean(DynamoDbClient.class, UnansweredClients::sync)
                .withPropertyValues("locktable.table-name=Locks")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockTable.class));

        List<String> warning = record(output, "WARN", "Could not check the lock table 'Locks' at startup");
        assertThat(warning).as("one line").hasSize(1);
        assertThat(warning.get(0))
                .contains(" at http://127.0.0.1:9 in region us-east-1: ")
                .contains("Connection refused")
                .contains("Check that DynamoDB answers there (locktable.dynamodb.endpoint and"
                        + " locktable.dynamodb.region")
                .contains("locks and leaderships retry until it answers");
        assertThat(String.join("\n", record(output, "DEBUG", "Could not check the lock table 'Locks' at startup")))
                .as("the whole stack, at DEBUG")
                .contains("Suppressed:")
                .contains("\tat ");
    }

    @Test
    void theFirstFailedAcquireOfALockedRunIsOneWarnLine(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockedRunAutoConfiguration.class))
                .withBean(LockTable.class, UnansweredClients::lockTable)
                .withBean(Report.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Report.class).run())
                            .as("skipped")
                            .isNull();
                });

        List<String> warning = record(output, "WARN", "@LockedRun 'report'");
        assertThat(warning).as("one line").hasSize(1);
        assertThat(warning.get(0))
                .contains("could not take the lock in table 'Locks', the call is skipped: ")
                .contains("Connection refused")
                .contains("Check that DynamoDB answers at the client's endpoint and region");
        assertThat(String.join("\n", record(output, "DEBUG", "@LockedRun 'report': the failed acquire")))
                .contains("\tat ");
    }

    @Test
    void theFirstFailedAcquireOfALeadershipIsOneWarnLine(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
                .withBean(LockTable.class, UnansweredClients::lockTable)
                .withBean(Sweep.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> output.getOut().contains("Leadership of lock 'sweep'"));
                    assertThat(context.getBean(Sweep.class).run()).as("skipped").isNull();
                });

        List<String> warning = record(output, "WARN", "Leadership of lock 'sweep'");
        assertThat(warning).as("one line").hasSize(1);
        assertThat(warning.get(0))
                .contains("in table 'Locks': acquire failed, trying again every ")
                .contains("Connection refused");
    }

    /** The lines of the first log record of a level whose message contains a text, up to the next record. */
    private static List<String> record(CapturedOutput output, String level, String text) {
        List<String> lines = output.getOut().lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (RECORD.matcher(line).find() && line.contains(" " + level + " ") && line.contains(text)) {
                int end = i + 1;
                while (end < lines.size() && !RECORD.matcher(lines.get(end)).find()) {
                    end++;
                }
                return lines.subList(i, end);
            }
        }
        throw new AssertionError("no " + level + " record with '" + text + "' in:\n" + output.getOut());
    }

    static class Sweep {
        @LeaderOnly("sweep")
        public String run() {
            return "ran";
        }
    }

    static class Report {
        @LockedRun("report")
        public String run() {
            return "ran";
        }
    }
}
