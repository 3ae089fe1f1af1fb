package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineAssumptions;
import io.locktable.test.EngineCapability;
import io.locktable.test.TestTable;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * locktable.time-to-live.attribute on the table's side, which lock-core's {@code createTableIfMissing} and {@code
 * verify} handle: enabled where the starter creates the table, checked elsewhere.
 */
@DynamoDbEngineTest
@ExtendWith(OutputCaptureExtension.class)
class TableTimeToLiveTest {

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final SentOperations sent = new SentOperations();
    private final ApplicationContextRunner runner;

    TableTimeToLiveTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockTableAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(sent)))
                .withPropertyValues("locktable.sort-key=" + table.sortKey().orElse(""), "locktable.lease-duration=2s");
    }

    private static int occurrences(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    /** A context that creates the table, with the time-to-live attribute set. */
    private ApplicationContextRunner creating(String created) {
        return runner.withPropertyValues(
                "locktable.table-name=" + created,
                "locktable.create-table=true",
                "locktable.time-to-live.attribute=expiresAt");
    }

    @Test
    void aTableTheStarterCreatesGetsItsTimeToLiveOnTheAttribute() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TIME_TO_LIVE);
        String created = engine.uniqueTableName("ttl-created");
        try {
            creating(created).run(context -> assertThat(context).hasNotFailed());

            TimeToLiveDescription description = engine.client()
                    .describeTimeToLive(r -> r.tableName(created))
                    .timeToLiveDescription();
            assertThat(description.attributeName()).isEqualTo("expiresAt");
            assertThat(description.timeToLiveStatus()).isIn(TimeToLiveStatus.ENABLED, TimeToLiveStatus.ENABLING);
        } finally {
            engine.deleteTable(created);
        }
    }

    @Test
    void whereTheEngineCannotEnableItTheTableIsStillUsedAndOneWarnSaysSo(CapturedOutput output) {
        assumeFalse(
                engine.supports(EngineCapability.TIME_TO_LIVE),
                "engine " + engine.name() + " has TIME_TO_LIVE: the time to live is enabled, not warned about");
        String created = engine.uniqueTableName("ttl-refused");
        try {
            creating(created).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(LockTable.class).tryAcquire("ttl", Duration.ofSeconds(2)))
                        .isPresent();
            });

            String warning = "Could not enable the time to live of the lock table '" + created + "' on 'expiresAt'";
            assertThat(occurrences(output.getOut(), warning)).isEqualTo(1);
            assertThat(sent.operations()).contains("CreateTable", "UpdateTimeToLive");
        } finally {
            engine.deleteTable(created);
        }
    }

    @Test
    void anExistingTableWhoseTimeToLiveIsOffIsReportedInOneWarn(CapturedOutput output) {
        runner.withPropertyValues("locktable.table-name=" + table.name(), "locktable.time-to-live.attribute=expiresAt")
                .run(context -> assertThat(context).hasNotFailed());

        String warning = "The lock items of table '" + table.name()
                + "' carry the time-to-live attribute 'expiresAt', but the table's time to live is ";
        assertThat(occurrences(output.getOut(), warning)).isEqualTo(1);
        assertThat(sent.operations()).contains("DescribeTimeToLive").doesNotContain("UpdateTimeToLive");
    }

    @Test
    void withoutTheAttributeTheTableTimeToLiveIsNeitherReadNorChanged() {
        runner.withPropertyValues("locktable.table-name=" + table.name())
                .run(context -> assertThat(context).hasNotFailed());

        assertThat(sent.operations()).isNotEmpty().doesNotContain("DescribeTimeToLive", "UpdateTimeToLive");
    }
}
