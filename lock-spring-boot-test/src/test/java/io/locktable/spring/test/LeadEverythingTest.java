package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientAutoConfiguration;
import io.locktable.spring.autoconfigure.LockedRunAutoConfiguration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The test mode {@code locktable.test.lead-everything}: with this module on the class path, every call runs without
 * any engine or table (the {@code DynamoDbClient} is built, as the application's beans inject it); without it (the marker class filtered out, as in production), the property changes
 * nothing. It needs no engine, so it starts none.
 */
class LeadEverythingTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withBean(Jobs.class);

    @Test
    void everyCallRunsWithoutAnyEngineOrTable() {
        runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true").run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .as("built for the application's beans, which inject it; building it sends nothing")
                    .hasSingleBean(DynamoDbClient.class)
                    .doesNotHaveBean(LockTable.class)
                    .doesNotHaveBean(LeaderRunner.class)
                    .doesNotHaveBean(LockedRuns.class);
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.lead()).as("ran, with no lease bound").contains("no lease");
            assertThat(jobs.run()).as("ran, with no lease bound").contains("no lease");
        });
    }

    @Test
    void theDeclarationsAreStillChecked() {
        runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true")
                .withBean(Primitive.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("@LockedRun method " + Primitive.class.getName()
                                + ".count() returns the primitive int"));
    }

    @Test
    void withoutTheMarkerClassThePropertyChangesNothing() {
        runner.withPropertyValues(
                        LockTableTestMode.PROPERTY + "=true",
                        "locktable.table-name=Locks",
                        "locktable.dynamodb.region=us-east-1",
                        "locktable.dynamodb.endpoint=http://127.0.0.1:9") // nothing answers: startup warns and goes on
                .withClassLoader(new FilteredClassLoader(LockTableTestMode.class))
                .run(context -> assertThat(context)
                        .as("the starter builds its client and lock table as in production")
                        .hasNotFailed()
                        .hasSingleBean(DynamoDbClient.class)
                        .hasSingleBean(LockTable.class)
                        .hasSingleBean(LockedRuns.class));
    }

    /** Public, so that a proxy in a FilteredClassLoader can extend it. */
    public static class Jobs {
        @LeaderOnly("lead")
        public Optional<String> lead() {
            return Optional.of(Lease.current().map(Lease::name).orElse("no lease"));
        }

        @LockedRun
        public Optional<String> run() {
            return Optional.of(Lease.current().map(Lease::name).orElse("no lease"));
        }
    }

    static class Primitive {
        @LockedRun
        public int count() {
            return 1;
        }
    }
}
