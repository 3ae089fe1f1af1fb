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
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.TestTable;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.dax.ClusterDaxClient;

/** Conditions and back-off of the auto-configuration, against the real engine wherever a table is checked. */
@DynamoDbEngineTest
class LockTableAutoConfigurationTest {

    private static final String ACCESS_KEY = "aws.accessKeyId";
    private static final String SECRET_KEY = "aws.secretAccessKey";
    private static boolean setCredentials;

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final ApplicationContextRunner runner;

    LockTableAutoConfigurationTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class))
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=2s");
    }

    /** The fallback client uses the default credentials chain: give it dummy keys for a local engine. */
    @BeforeAll
    static void credentialsForLocalEngine() {
        if (DynamoDbEngines.current().isLocal() && System.getProperty(ACCESS_KEY) == null) {
            System.setProperty(ACCESS_KEY, "test");
            System.setProperty(SECRET_KEY, "test");
            setCredentials = true;
        }
    }

    @AfterAll
    static void clearCredentials() {
        if (setCredentials) {
            System.clearProperty(ACCESS_KEY);
            System.clearProperty(SECRET_KEY);
        }
    }

    private ApplicationContextRunner withEngineClient() {
        return runner.withBean(DynamoDbClient.class, () -> engine.newClient(o -> {}));
    }

    @Test
    void buildsAClientWhenTheContextHasNone() {
        runner.withPropertyValues(
                        "locktable.dynamodb.endpoint=" + engine.endpoint(), "locktable.dynamodb.region=us-east-1")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DynamoDbClient.class);
                    DynamoDbClient client = context.getBean(DynamoDbClient.class);
                    assertThat(client.serviceClientConfiguration().endpointOverride())
                            .contains(engine.endpoint());
                    assertThat(client.serviceClientConfiguration().region()).isEqualTo(Region.US_EAST_1);
                    assertThat(context).hasSingleBean(LockTable.class).hasSingleBean(LeaderRunner.class);
                    assertThat(context.getBean(LockTable.class).tableName()).isEqualTo(table.name());
                });
    }

    @Test
    void connectionDetailsOfTheContextWinOverTheProperties() {
        LockTableConnectionDetails details = new LockTableConnectionDetails() {
            @Override
            public URI getEndpoint() {
                return engine.endpoint();
            }

            @Override
            public String getRegion() {
                return "us-east-1"; // the engine's: moto keeps tables per region
            }

            @Override
            public AwsCredentialsProvider getCredentialsProvider() {
                return StaticCredentialsProvider.create(AwsBasicCredentials.create("details", "details"));
            }
        };
        runner.withPropertyValues(
                        "locktable.dynamodb.endpoint=http://127.0.0.1:9", "locktable.dynamodb.region=eu-west-1")
                .withBean(LockTableConnectionDetails.class, () -> details)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTableConnectionDetails.class);
                    DynamoDbClient client = context.getBean(DynamoDbClient.class);
                    assertThat(client.serviceClientConfiguration().endpointOverride())
                            .contains(engine.endpoint());
                    assertThat(client.serviceClientConfiguration().region()).isEqualTo(Region.US_EAST_1);
                    assertThat(context.getBean(LockTable.class).tryAcquire("by-details", Duration.ofSeconds(2)))
                            .as("the client reaches the engine")
                            .isPresent();
                });
    }

    @Test
    void thePropertiesAreTheConnectionDetailsWhenTheContextHasNone() {
        runner.withPropertyValues(
                        "locktable.dynamodb.endpoint=" + engine.endpoint(), "locktable.dynamodb.region=us-east-1")
                .run(context -> {
                    LockTableConnectionDetails details = context.getBean(LockTableConnectionDetails.class);
                    assertThat(details.getEndpoint()).isEqualTo(engine.endpoint());
                    assertThat(details.getRegion()).isEqualTo("us-east-1");
                    assertThat(details.getCredentialsProvider())
                            .as("the default chain")
                            .isNull();
                });
    }

    @Test
    void theBuildersCustomizersAdjustTheClientItBuildsInOrder() {
        List<String> applied = new CopyOnWriteArrayList<>();
        SentOperations sent = new SentOperations();
        runner.withPropertyValues(
                        "locktable.dynamodb.endpoint=" + engine.endpoint(), "locktable.dynamodb.region=us-east-1")
                .withBean(
                        "second",
                        LockTableDynamoDbClientBuilderCustomizer.class,
                        () -> new OrderedClientCustomizer(2, builder -> applied.add("second")))
                .withBean(
                        "first",
                        LockTableDynamoDbClientBuilderCustomizer.class,
                        () -> new OrderedClientCustomizer(1, builder -> {
                            applied.add("first");
                            builder.overrideConfiguration(o -> o.addExecutionInterceptor(sent));
                        }))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(applied).containsExactly("first", "second");
                    assertThat(sent.operations())
                            .as("the locks' requests went through the customized client")
                            .contains("DescribeTable");
                });
    }

    /** A customizer with an order, as an application's {@code @Order} bean would have. */
    record OrderedClientCustomizer(int order, LockTableDynamoDbClientBuilderCustomizer customizer)
            implements LockTableDynamoDbClientBuilderCustomizer, org.springframework.core.Ordered {
        @Override
        public void customize(software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder builder) {
            customizer.customize(builder);
        }

        @Override
        public int getOrder() {
            return order;
        }
    }

    @Test
    void usesTheClientOfTheContext() {
        SentOperations sent = new SentOperations();
        runner.withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(sent)))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DynamoDbClient.class);
                    assertThat(context.getBean(DynamoDbClient.class)
                                    .serviceClientConfiguration()
                                    .endpointOverride())
                            .contains(engine.endpoint());
                    assertThat(sent.operations())
                            .as("verify() at startup, through the context's client")
                            .contains("DescribeTable");
                });
    }

    @Test
    void usesTheLockTableOfTheContextWithoutNeedingProperties() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> {}))
                .withBean(
                        "myLocks",
                        LockTable.class,
                        () -> LockTable.builder(engine.client(), table.name(), table.partitionKey())
                                .sortKey(table.sortKey().orElseThrow())
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
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> {}))
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
        withEngineClient().withPropertyValues("locktable.lease-duration=500ms").run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("locktable.lease-duration is PT0.5S, outside the range a lease may have, 1s to 1d.");
            assertThat(analysis.getAction()).startsWith("Set locktable.lease-duration from 1s to 1d");
        });
        withEngineClient()
                .withPropertyValues("locktable.lease-duration=2d")
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("locktable.lease-duration is PT48H"));
    }

    @Test
    void aNumberWithoutAUnitIsInSecondsForLeaseScaleDurations() {
        withEngineClient()
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
        withEngineClient()
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
                "locktable.sort-key is not valid: sortKey of table " + table.name()
                        + " must differ from its partitionKey 'pk'.",
                "Set locktable.sort-key");
        assertRefused(
                "locktable.time-to-live.attribute=sk",
                "locktable.time-to-live.attribute is not valid: timeToLive attribute 'sk' of table " + table.name()
                        + " is one of its key attributes.",
                "Set locktable.time-to-live.attribute to the table's time-to-live attribute");
    }

    private void assertRefused(String property, String description, String action) {
        withEngineClient().withPropertyValues(property).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription()).as(property).startsWith(description);
            assertThat(analysis.getAction()).as(property).startsWith(action);
        });
    }

    @Test
    void aDefaultHolderLongerThanLockCoreAllowsIsCutToItsLength() {
        withEngineClient()
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
    void keysThatDoNotMatchTheTableAreDescribed() {
        withEngineClient().withPropertyValues("locktable.sort-key=range").run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("Table '" + table.name() + "' cannot hold locks")
                    .contains("its sort key is 'sk', not 'range'");
            assertThat(analysis.getAction()).startsWith("Set locktable.partition-key and locktable.sort-key");
        });
    }

    @Test
    void missingTableIsDescribedAndCreatedOnlyWhenAsked() {
        String missing = engine.uniqueTableName("missing");
        withEngineClient().withPropertyValues("locktable.table-name=" + missing).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("The lock table '" + missing + "' (locktable.table-name) does not exist at "
                            + engine.endpoint());
            assertThat(analysis.getAction())
                    .contains("a string partition key 'pk' and a string sort key 'sk'")
                    .contains("locktable.create-table=true");
        });
        try {
            withEngineClient()
                    .withPropertyValues("locktable.table-name=" + missing, "locktable.create-table=true")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        LockTable locks = context.getBean(LockTable.class);
                        assertThat(locks.tryAcquire("created", Duration.ofSeconds(2)))
                                .hasValueSatisfying(lease ->
                                        assertThat(lease.fencingToken()).isEqualTo(1));
                    });
        } finally {
            engine.deleteTable(missing);
        }
    }

    @Test
    void refusesADaxClientByItsType() {
        runner.withBean(DynamoDbClient.class, FakeDaxClient::new).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("The DynamoDbClient for the locks is a DAX client (" + FakeDaxClient.class.getName())
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
        assertThat(LockTableClient.isDax(engine.client())).isFalse();
    }

    @Test
    void aDaxClientOfTheApplicationIsLeftAloneWhenAPlainOneIsMarkedForTheLocks() {
        runner.withBean(DynamoDbEngine.class, () -> engine)
                .withUserConfiguration(DaxAndMarkedPlainClient.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    assertThat(context.getBean(DynamoDbClient.class)).isInstanceOf(FakeDaxClient.class);
                    Lease lease = context.getBean(LockTable.class)
                            .tryAcquire("beside-dax-" + UUID.randomUUID(), Duration.ofSeconds(2))
                            .orElseThrow();
                    lease.release();
                });
    }

    /** The application's DAX client, and a plain client for the locks only. */
    @Configuration(proxyBeanMethods = false)
    static class DaxAndMarkedPlainClient {
        @Bean
        DynamoDbClient dax() {
            return new FakeDaxClient();
        }

        @Bean(defaultCandidate = false)
        @LockTableDynamoDbClient
        DynamoDbClient locks(DynamoDbEngine engine) {
            return engine.newClient(o -> {});
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
        withEngineClient()
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
        withEngineClient()
                .withBean(
                        "myRunner",
                        LeaderRunner.class,
                        () -> new LeaderRunner(LockTable.builder(engine.client(), table.name(), "pk")
                                .sortKey("sk")
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
        withEngineClient()
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
        withEngineClient().withBean(LockTableListener.class, () -> listener).run(context -> {
            Lease lease = context.getBean(LockTable.class)
                    .tryAcquire(name, Duration.ofSeconds(2))
                    .orElseThrow();
            // listeners hear the table's events on its event thread
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains("acquired " + name));
            assertThat(heard).containsExactly("acquired " + name);
            context.close();
            assertThat(lease.end()).contains(LeaseEnd.CLOSED);
        });
        try (LockTable other = LockTable.builder(engine.client(), table.name(), "pk")
                .sortKey("sk")
                .build()) {
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
