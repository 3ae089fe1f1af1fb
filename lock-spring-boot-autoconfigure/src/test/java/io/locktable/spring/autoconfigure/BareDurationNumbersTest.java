package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A lease-scale duration property written as a number without a unit of 1000 or more ({@code
 * locktable.lease-duration=30000}), which would be that many seconds, fails startup asking which was meant. The
 * properties are checked while the beans are created, before any request: the lock table here is the context's own,
 * over a real client that nothing answers, so no engine is started.
 */
class BareDurationNumbersTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class,
                    LockTableHealthAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class))
            .withBean(DynamoDbClient.class, UnansweredClients::sync)
            .withBean(LockTable.class, UnansweredClients::lockTable);

    @Test
    void aLeaseOfThirtyThousandWithoutAUnitAsksWhetherMillisecondsOrSecondsWereMeant() {
        runner.withPropertyValues("locktable.lease-duration=30000").run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("locktable.lease-duration=30000 has no unit, so it is read as 30000 seconds (8h20m):"
                            + " did you mean 30000ms or 30s?");
            assertThat(analysis.getAction())
                    .startsWith("Write the unit: locktable.lease-duration=30000ms or locktable.lease-duration=30s.");
        });
    }

    @Test
    void aNumberThatIsNoWholeNumberOfSecondsIsOfferedInMillisecondsOrIso() {
        runner.withPropertyValues("locktable.lease-duration=2500")
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .endsWith("did you mean 2500ms or PT2.5S?"));
    }

    @Test
    void theRawTextIsReadUnderEveryNameSpringBootBindsIt() {
        runner.withPropertyValues("locktable.leaseDuration=${lease.ms}", "lease.ms=45000")
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("locktable.lease-duration=45000 has no unit")
                        .endsWith("did you mean 45000ms or 45s?"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"locktable.leader.shutdown-timeout", "locktable.health.down-after"})
    void everyLeaseScaleDurationIsChecked(String property) {
        runner.withPropertyValues(property + "=20000").run(context -> {
            assertThat(Analyses.of(context.getStartupFailure()).getDescription())
                    .isEqualTo(property + "=20000 has no unit, so it is read as 20000 seconds (5h33m20s): did you"
                            + " mean 20000ms or 20s?");
        });
    }

    @Test
    void aUnitOrASmallNumberOfSecondsIsTakenAsWritten() {
        runner.withPropertyValues(
                        "locktable.lease-duration=30000ms",
                        "locktable.leader.shutdown-timeout=999",
                        "locktable.health.down-after=1000s",
                        "locktable.time-to-live.retention=86400") // not lease-scale: a day, in seconds
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LeaderRunner.class);
                    LockTableProperties properties = context.getBean(LockTableProperties.class);
                    assertThat(properties.getLeaseDuration()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(properties.getLeader().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(999));
                    assertThat(properties.getHealth().getDownAfter()).isEqualTo(Duration.ofSeconds(1000));
                    assertThat(properties.getTimeToLive().getRetention()).isEqualTo(Duration.ofDays(1));
                });
    }
}
