package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.test.LockTableTestMode;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.TestTable;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The client the locks use and the table it reaches, on the real engine: the client the starter builds or the
 * context's, its endpoint and connection details, the table checked (keys, a missing table created only when asked),
 * and the test mode ignored without the test support on the class path. The conditions, back-off and property checks
 * that send nothing are in {@link LockTableAutoConfigurationTest}, without an engine.
 */
@DynamoDbEngineTest
@ExtendWith(OutputCaptureExtension.class)
class LockTableConnectionTest {

    private static final String ACCESS_KEY = "aws.accessKeyId";
    private static final String SECRET_KEY = "aws.secretAccessKey";
    private static boolean setCredentials;

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final ApplicationContextRunner runner;

    LockTableConnectionTest(DynamoDbEngine engine, TestTable table) {
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
    void keysThatDoNotMatchTheTableAreDescribed() {
        withEngineClient().withPropertyValues("locktable.sort-key=range").run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("Table '" + table.name() + "' cannot hold locks")
                    .contains("its sort key is 'sk', not 'range'");
            assertThat(analysis.getAction()).startsWith("Set locktable.partition-key and locktable.sort-key");
        });
    }

    /** Issue 37: a table whose key is a number needs another table; no property can make it fit. */
    @Test
    void aTableWithANumericKeyIsToldToUseAnotherTable() {
        String numeric = engine.uniqueTableName("numeric");
        engine.client()
                .createTable(r -> r.tableName(numeric)
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .attributeDefinitions(AttributeDefinition.builder()
                                .attributeName("pk")
                                .attributeType(ScalarAttributeType.N)
                                .build())
                        .keySchema(KeySchemaElement.builder()
                                .attributeName("pk")
                                .keyType(KeyType.HASH)
                                .build()));
        try {
            withEngineClient()
                    .withPropertyValues("locktable.table-name=" + numeric, "locktable.sort-key=")
                    .run(context -> {
                        FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                        assertThat(analysis.getDescription())
                                .isEqualTo("Table '" + numeric + "' cannot hold locks: its key attribute 'pk' is of"
                                        + " type N, not a string (S).");
                        assertThat(analysis.getAction())
                                .startsWith("Give the locks another table: a table's key types cannot change")
                                .contains("with locktable.create-table=true it is created at startup, with a string"
                                        + " partition key 'pk'")
                                .doesNotContain("Set locktable.partition-key");
                    });
        } finally {
            engine.deleteTable(numeric);
        }
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

    @Test
    void theTestModeIsIgnoredWithoutTheTestSupportOnTheClassPath(CapturedOutput output) {
        withEngineClient()
                .withConfiguration(AutoConfigurations.of(LockedRunAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(LockTableTestMode.class)) // as in production
                .withPropertyValues("locktable.test.lead-everything=true", "jobs.report=nightly-report")
                .withBean(LockedRunDeclarationTest.Named.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockedRuns.class);
                    assertThat(context.getBean(LockedRunDeclarationTest.Named.class)
                                    .composed()
                                    .isHeld())
                            .as("released after the run: a real lock was taken")
                            .isFalse();
                    assertThat(output).contains("locktable.test.lead-everything=true is ignored");
                });
    }
}
