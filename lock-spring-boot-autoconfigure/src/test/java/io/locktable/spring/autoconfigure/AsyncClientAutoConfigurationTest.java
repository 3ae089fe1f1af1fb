package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRuns;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A context with a {@code DynamoDbAsyncClient} and no {@code DynamoDbClient} (an application that has only the
 * asynchronous client) gets its lock table over that client, checked at startup through it; with both, the
 * synchronous client stays the one the locks use, unless the asynchronous one is marked for them.
 */
@DynamoDbEngineTest
class AsyncClientAutoConfigurationTest {

    private final DynamoDbEngine engine;
    private final ApplicationContextRunner runner;

    AsyncClientAutoConfigurationTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockedRunAutoConfiguration.class))
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=2s");
    }

    @Test
    void anAsyncClientAloneGetsTheLockTableOverItCheckedAtStartupThroughIt() {
        SentOperations sent = new SentOperations();
        runner.withBean(DynamoDbAsyncClient.class, () -> engine.newAsyncClient(o -> o.addExecutionInterceptor(sent)))
                .withBean(Jobs.class)
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(LockTable.class)
                            .hasSingleBean(LeaderRunner.class)
                            .hasSingleBean(LockedRuns.class);
                    assertThat(context)
                            .as("no synchronous client built beside the application's asynchronous one")
                            .doesNotHaveBean(DynamoDbClient.class);
                    assertThat(sent.operations())
                            .as("verify() at startup, through the asynchronous client")
                            .contains("DescribeTable");

                    String name = "async-" + UUID.randomUUID();
                    Lease lease = context.getBean(LockTable.class)
                            .tryAcquireAsync(name, Duration.ofSeconds(2))
                            .get(5, TimeUnit.SECONDS)
                            .orElseThrow();
                    assertThat(sent.operations()).contains("UpdateItem");
                    lease.release();

                    Jobs jobs = context.getBean(Jobs.class);
                    assertThat(jobs.run().block(Duration.ofSeconds(5)))
                            .as("a @LockedRun over the asynchronous client")
                            .isPositive();
                    assertThat(jobs.seen().name()).isEqualTo("async-job");
                });
    }

    @Test
    void withBothClientsTheSynchronousOneIsUsed() {
        SentOperations sync = new SentOperations();
        SentOperations async = new SentOperations();
        runner.withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(sync)))
                .withBean(DynamoDbAsyncClient.class, () -> engine.newAsyncClient(o -> o.addExecutionInterceptor(async)))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    context.getBean(LockTable.class)
                            .tryAcquire("both-" + UUID.randomUUID(), Duration.ofSeconds(2))
                            .orElseThrow()
                            .release();
                    assertThat(sync.operations()).contains("DescribeTable", "UpdateItem");
                    assertThat(async.operations()).isEmpty();
                });
    }

    @Test
    void anAsyncClientMarkedForTheLocksWinsOverTheSynchronousOne() {
        SentOperations async = new SentOperations();
        runner.withBean(DynamoDbClient.class, UnansweredClients::sync)
                .withBean(SentOperations.class, () -> async)
                .withBean(DynamoDbEngine.class, () -> engine)
                .withUserConfiguration(MarkedAsyncClient.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    assertThat(async.operations()).contains("DescribeTable");
                    context.getBean(LockTable.class)
                            .tryAcquire("marked-" + UUID.randomUUID(), Duration.ofSeconds(2))
                            .orElseThrow()
                            .release();
                    assertThat(async.operations()).contains("UpdateItem");
                });
    }

    @Test
    void aMissingTableIsDescribedOverTheAsyncClient() {
        String missing = engine.uniqueTableName("missing-async");
        runner.withBean(DynamoDbAsyncClient.class, () -> engine.newAsyncClient(o -> {}))
                .withPropertyValues("locktable.table-name=" + missing)
                .run(context -> {
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith("The lock table '" + missing + "' (locktable.table-name) does not exist at "
                                    + engine.endpoint());
                    assertThat(analysis.getAction()).contains("locktable.create-table=true");
                });
    }

    @Test
    void refusesADaxAsyncClientByItsType() {
        runner.withBean(DynamoDbAsyncClient.class, software.amazon.dax.ClusterDaxAsyncClient::new)
                .run(context -> {
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith("The DynamoDbAsyncClient for the locks is a DAX client (")
                            .contains("not strongly consistent");
                });
    }

    /** The application's asynchronous client marked for the locks, beside a plain synchronous one. */
    @Configuration(proxyBeanMethods = false)
    static class MarkedAsyncClient {
        @Bean(defaultCandidate = false)
        @LockTableDynamoDbClient
        DynamoDbAsyncClient locks(DynamoDbEngine engine, SentOperations sent) {
            return engine.newAsyncClient(o -> o.addExecutionInterceptor(sent));
        }
    }

    /** A reactive job, to run over the lock table of the asynchronous client. */
    public static class Jobs {
        private final AtomicReference<Lease> seen = new AtomicReference<>();

        public Lease seen() {
            return seen.get();
        }

        @LockedRun("async-job")
        public Mono<Long> run() {
            Lease lease = Lease.current().orElseThrow();
            seen.set(lease);
            return Mono.just(lease.fencingToken());
        }
    }
}
