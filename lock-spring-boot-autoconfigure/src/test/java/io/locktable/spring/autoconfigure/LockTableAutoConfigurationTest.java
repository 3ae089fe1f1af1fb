package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.LockTableOptions;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockAnnotationAdvisor;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.dax.ClusterDaxClient;

/**
 * Conditions, back-off and property checks of the auto-configuration, none of which sends a request: no engine. Where
 * the context must start, its lock table is in memory (the test mode); where the starter's own DynamoDB table must be
 * built (its names, its client), the client is of an endpoint where nothing listens, and the context fails while the
 * beans are created, before any request. What the client reaches is in {@link LockTableConnectionTest}, on the engine.
 */
class LockTableAutoConfigurationTest {

    /** A name for the starter's DynamoDB lock table where it is built over {@link UnansweredClients#sync()}. */
    private static final String TABLE = "Locks";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class))
            .withPropertyValues("locktable.lease-duration=2s");

    /** The starter's lock table in memory: the context starts and nothing is sent. */
    private ApplicationContextRunner inMemory() {
        return runner.withPropertyValues(LockTableTestMode.ON);
    }

    /** The starter's DynamoDB lock table over a client that nothing answers: for what fails before any request. */
    private ApplicationContextRunner unanswered() {
        return runner.withBean(DynamoDbClient.class, UnansweredClients::sync)
                .withPropertyValues("locktable.table-name=" + TABLE, "locktable.sort-key=sk");
    }

    @Test
    void usesTheLockTableOfTheContextWithoutNeedingProperties() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class))
                .withBean(DynamoDbClient.class, UnansweredClients::sync)
                .withBean(
                        "myLocks",
                        LockTable.class,
                        () -> LockTable.inMemory("my-locks-" + UUID.randomUUID())
                                .build())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    assertThat(context).getBean(LockTable.class).isSameAs(context.getBean("myLocks"));
                    assertThat(context.getBean(LeaderRunner.class).lockTable()).isSameAs(context.getBean("myLocks"));
                });
    }

    @Test
    void missingTableNameIsDescribedWithThePropertyAndWhatToDo() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(LockTableAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
                .withBean(DynamoDbClient.class, UnansweredClients::sync)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .isEqualTo("The lock table has no name: locktable.table-name is not set.");
                    assertThat(analysis.getAction())
                            .startsWith("Set locktable.table-name to the DynamoDB table that holds the locks")
                            .contains("or define a LockTable bean of your own");
                });
    }

    @Test
    void leaseOutOfRangeIsDescribed() {
        inMemory().withPropertyValues("locktable.lease-duration=500ms").run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("locktable.lease-duration is PT0.5S, outside the range a lease may have, 1s to 1d.");
            assertThat(analysis.getAction()).startsWith("Set locktable.lease-duration from 1s to 1d");
        });
        inMemory()
                .withPropertyValues("locktable.lease-duration=2d")
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("locktable.lease-duration is PT48H"));
    }

    @Test
    void aNumberWithoutAUnitIsInSecondsForLeaseScaleDurations() {
        inMemory()
                .withPropertyValues("locktable.lease-duration=30", "locktable.time-to-live.retention=3600")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTableProperties properties = context.getBean(LockTableProperties.class);
                    assertThat(properties.getLeaseDuration()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(properties.getTimeToLive().getRetention()).isEqualTo(Duration.ofHours(1));
                });
    }

    @Test
    void aTimeToLiveRetentionUnderAnHourIsDescribedWithLockCoresReason() {
        inMemory()
                .withPropertyValues(
                        "locktable.time-to-live.attribute=expiresAt", "locktable.time-to-live.retention=10m")
                .run(context -> {
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith("locktable.time-to-live.retention is not valid")
                            .contains("at least PT1H")
                            .contains("fencing token");
                    assertThat(analysis.getAction()).startsWith("Set locktable.time-to-live.retention");
                });
    }

    /**
     * lock-core keeps the rules for names (LockTableNames, LockTable.Builder, tested in lock-core); the starter names
     * the property and passes lock-core's reason on.
     */
    @Test
    void aNameLockCoreRefusesFailsStartupNamingTheProperty() {
        assertRefused(
                "locktable.table-name=a b",
                "locktable.table-name is not valid: tableName must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-'"
                        + " and '.', was 'a b'.",
                "Set locktable.table-name to the name of the DynamoDB table");
        assertRefused(
                "locktable.partition-key=owner",
                "locktable.partition-key is not valid: key attribute 'owner' is the name of one of the lock item's own"
                        + " attributes",
                "Set locktable.partition-key to the name of the table's partition key attribute");
        assertRefused(
                "locktable.partition-key= ",
                "locktable.partition-key is not valid: key attribute must be 1 to 255 characters, not blank, was ''.",
                "Set locktable.partition-key");
        assertRefused(
                "locktable.sort-key=fence",
                "locktable.sort-key is not valid: key attribute 'fence' is the name of one of the lock item's own"
                        + " attributes",
                "Set locktable.sort-key to the name of the table's sort key attribute");
        assertRefused(
                "locktable.sort-key=pk",
                "locktable.sort-key is not valid: sortKey of table " + TABLE
                        + " must differ from its partitionKey 'pk'.",
                "Set locktable.sort-key");
        assertRefused(
                "locktable.time-to-live.attribute=sk",
                "locktable.time-to-live.attribute is not valid: timeToLive attribute 'sk' of table " + TABLE
                        + " is one of its key attributes.",
                "Set locktable.time-to-live.attribute to the table's time-to-live attribute");
    }

    private void assertRefused(String property, String description, String action) {
        unanswered().withPropertyValues(property).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription()).as(property).startsWith(description);
            assertThat(analysis.getAction()).as(property).startsWith(action);
        });
    }

    @Test
    void aDefaultHolderLongerThanLockCoreAllowsIsCutToItsLength() {
        inMemory()
                .withPropertyValues("spring.application.name=" + "orders".repeat(50))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockTable.class).options().holder())
                            .hasValueSatisfying(holder -> assertThat(holder)
                                    .startsWith("orders")
                                    .hasSize(LockTableOptions.MAX_HOLDER_LENGTH));
                });
    }

    @Test
    void refusesADaxClientByItsType() {
        runner.withBean(DynamoDbClient.class, FakeDaxClient::new)
                .withPropertyValues("locktable.table-name=" + TABLE)
                .run(context -> {
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith("The DynamoDbClient for the locks is a DAX client ("
                                    + FakeDaxClient.class.getName())
                            .contains("not strongly consistent");
                    assertThat(analysis.getAction())
                            .startsWith("Define a plain DynamoDbClient bean (DynamoDbClient.create()) and mark it with"
                                    + " @LockTableDynamoDbClient")
                            .contains("@Bean(defaultCandidate = false)");
                });
        assertThat(LockTableClient.isDax(new ClusterDaxClient())).isTrue();
        assertThat(LockTableClient.isDax(new DaxNamedClient()))
                .as("a name is no type")
                .isFalse();
        try (DynamoDbClient plain = UnansweredClients.sync()) {
            assertThat(LockTableClient.isDax(plain)).isFalse();
        }
    }

    /** A plain client whose class name says DAX. */
    static final class DaxNamedClient implements DynamoDbClient {
        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {}
    }

    @Test
    void leaderDisabledMeansNoRunnerAndSkippedCalls() {
        inMemory()
                .withPropertyValues("locktable.leader.enabled=false")
                .withBean(Job.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    assertThat(context).doesNotHaveBean(LeaderRunner.class);
                    assertThat(context).hasSingleBean(LockAnnotationAdvisor.class);
                    Job job = context.getBean(Job.class);
                    assertThat(job.run()).isNull();
                    assertThat(job.maybe()).isEmpty();
                    assertThat(job.calls).isZero();
                });
    }

    @Test
    void backsOffForARunnerAndAnAdvisorOfTheContext() {
        inMemory()
                .withBean(
                        "myRunner",
                        LeaderRunner.class,
                        () -> new LeaderRunner(LockTable.inMemory("my-runner-" + UUID.randomUUID())
                                .build()))
                .withBean(
                        "myAdvisor",
                        LockAnnotationAdvisor.class,
                        () -> new LockAnnotationAdvisor(() -> Duration.ofSeconds(5)))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).getBean(LeaderRunner.class).isSameAs(context.getBean("myRunner"));
                    assertThat(context).getBean(LockAnnotationAdvisor.class).isSameAs(context.getBean("myAdvisor"));
                });
    }

    @Test
    void worksWithoutActuatorNorMicrometer() {
        inMemory()
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "io.micrometer"))
                .withBean(Job.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context)
                            .hasSingleBean(LockTable.class)
                            .hasSingleBean(LeaderRunner.class)
                            .hasSingleBean(LockAnnotationAdvisor.class);
                });
    }

    @Test
    void listenerBeansHearTheLockTableAndClosingReleasesItsLeases() {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockTableListener listener = new LockTableListener() {
            @Override
            public void onAcquired(Lease lease, boolean tookOver) {
                heard.add("acquired " + lease.name());
            }

            @Override
            public void onReleased(Lease lease) {
                heard.add("released " + lease.name());
            }
        };
        String name = "held-at-close-" + UUID.randomUUID();
        String[] table = new String[1];
        inMemory().withBean(LockTableListener.class, () -> listener).run(context -> {
            table[0] = context.getBean(LockTable.class).tableName();
            Lease lease = context.getBean(LockTable.class)
                    .tryAcquire(name, Duration.ofSeconds(2))
                    .orElseThrow();
            // listeners hear the table's events on its event thread
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains("acquired " + name));
            assertThat(heard).containsExactly("acquired " + name);
            context.close();
            assertThat(lease.end()).contains(LeaseEnd.CLOSED);
        });
        try (LockTable other = LockTable.inMemory(table[0]).build()) {
            assertThat(other.tryAcquire(name, Duration.ofSeconds(2)))
                    .as("released on close")
                    .isPresent();
        }
    }

    @Test
    void registersBothFailureAnalyzers() {
        assertThat(Analyses.registered())
                .extracting(analyzer -> analyzer.getClass().getName())
                .contains(
                        "io.locktable.spring.autoconfigure.LockTableFailureAnalyzer",
                        "io.locktable.spring.MethodDeclarationFailureAnalyzer");
    }

    /** A bean with {@code @LeaderOnly} methods; public so that a proxy in a FilteredClassLoader can extend it. */
    public static class Job {
        volatile int calls;

        @LeaderOnly("job")
        public String run() {
            calls++;
            return "ran";
        }

        @LeaderOnly("job")
        public Optional<String> maybe() {
            calls++;
            return Optional.of("ran");
        }
    }
}
