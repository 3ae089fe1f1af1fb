package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.ManualLockClock;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The durations of {@code @LeaderOnly} and {@code @LockedRun} are read as the {@code locktable.*} properties are (issue
 * 37): a number without a unit is seconds, one of 1000 or more fails startup with the properties' question, a
 * placeholder that resolves to empty is the default, and a refused value is shown as resolved. The lock table is in
 * memory.
 */
class AnnotationDurationsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withPropertyValues(LockTableTestMode.ON, "locktable.lease-duration=2s");

    @Test
    void aLeaseOfThirtyThousandWithoutAUnitFailsStartupAsThePropertyDoes() {
        runner.withBean(ThirtyThousand.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("@LeaderOnly method " + ThirtyThousand.class.getName() + ".run() has leaseDuration"
                            + " '30000': 30000 has no unit, so it is read as 30000 seconds (8h20m): did you mean"
                            + " 30000ms or 30s?");
            assertThat(analysis.getAction())
                    .startsWith("Write the unit: leaseDuration = \"30000ms\" or leaseDuration = \"30s\".");
        });
    }

    @Test
    void aRefusedValueIsShownAsItResolved() {
        runner.withPropertyValues("app.lease=45000")
                .withBean(FromProperty.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .isEqualTo("@LockedRun method " + FromProperty.class.getName() + ".run() has leaseDuration"
                                + " '${app.lease}' (resolved to '45000'): 45000 has no unit, so it is read as 45000"
                                + " seconds (12h30m): did you mean 45000ms or 45s?"));
        runner.withPropertyValues("app.hold=soon")
                .withBean(HoldFromProperty.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .isEqualTo("@LockedRun method " + HoldFromProperty.class.getName() + ".run() has minHold"
                                + " '${app.hold}' (resolved to 'soon'), which is not a duration."));
    }

    @Test
    void aNumberWithoutAUnitIsSeconds() {
        runner.withBean(SmallNumbers.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SmallNumbers.class).run().duration()).isEqualTo(Duration.ofSeconds(20));
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> leaders.isLeader("small-leader"));
            assertThat(leaders.lease("small-leader").orElseThrow().duration()).isEqualTo(Duration.ofSeconds(5));
        });
    }

    @Test
    void aMinHoldOfFourIsFourSeconds() {
        ManualLockClock clock = new ManualLockClock();
        runner.withBean(LockTableBuilderCustomizer.class, () -> builder -> builder.clock(clock))
                .withBean(HoldFour.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTable locks = context.getBean(LockTable.class);
                    assertThat(context.getBean(HoldFour.class).run()).isNotNull();

                    clock.advance(Duration.ofSeconds(1)); // far past 4 ms; the hold is 4 s of this clock
                    assertThat(locks.read("hold-four").flatMap(LockRecord::owner))
                            .as("held 1 s after the run")
                            .isPresent();
                    clock.advance(Duration.ofSeconds(4));
                    assertThat(locks.read("hold-four").flatMap(LockRecord::owner))
                            .as("released once 4 s have passed")
                            .isEmpty();
                });
    }

    @Test
    void aPlaceholderThatResolvesToEmptyIsTheDefault() {
        runner.withBean(EmptyPlaceholders.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(EmptyPlaceholders.class).run().duration())
                    .as("locktable.lease-duration")
                    .isEqualTo(Duration.ofSeconds(2));
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> leaders.isLeader("empty-leader"));
            assertThat(leaders.lease("empty-leader").orElseThrow().duration()).isEqualTo(Duration.ofSeconds(2));
        });
    }

    static class ThirtyThousand {
        @LeaderOnly(name = "thirty-thousand", leaseDuration = "30000")
        public void run() {}
    }

    static class FromProperty {
        @LockedRun(name = "from-property", leaseDuration = "${app.lease}")
        public void run() {}
    }

    static class HoldFromProperty {
        @LockedRun(name = "hold-from-property", minHold = "${app.hold}")
        public void run() {}
    }

    static class SmallNumbers {
        @LockedRun(name = "small-run", leaseDuration = "20")
        public Lease run() {
            return Lease.current().orElseThrow();
        }

        @LeaderOnly(name = "small-leader", leaseDuration = "5")
        public void lead() {}
    }

    static class HoldFour {
        @LockedRun(name = "hold-four", leaseDuration = "30s", minHold = "4")
        public Lease run() {
            return Lease.current().orElseThrow();
        }
    }

    static class EmptyPlaceholders {
        @LockedRun(name = "empty-run", leaseDuration = "${app.lease:}", minHold = "${app.hold:}")
        public Lease run() {
            return Lease.current().orElseThrow();
        }

        @LeaderOnly(name = "empty-leader", leaseDuration = "${app.lease:}")
        public void lead() {}
    }
}
