package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.autoconfigure.ReactiveLeaderOnlyTest.Jobs;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A {@code @LeaderOnly} call whose work runs after it returned is cancelled when the term is lost: on the real engine,
 * its renewals failed on purpose. The jobs are {@link ReactiveLeaderOnlyTest}'s; the rest of it runs over the in-memory
 * table.
 */
@DynamoDbEngineTest
class ReactiveLeaderOnlyFaultsTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration WITHIN = Duration.ofSeconds(10);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private final FaultInjector faults = new FaultInjector();
    private final ApplicationContextRunner runner;

    ReactiveLeaderOnlyFaultsTest(DynamoDbEngine engine, TestTable table) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockedRunAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(faults)))
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=" + LEASE.toMillis() + "ms");
    }

    @Test
    void aCallInFlightIsCancelledWhenTheTermIsLost() throws Exception {
        runner.withBean(Jobs.class).run(context -> {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(WITHIN).until(() -> leaders.isLeader("sweeper"));
            Lease term = leaders.lease("sweeper").orElseThrow();
            CompletableFuture<Long> mono = jobs.mono().toFuture();
            await().atMost(MARGIN).until(() -> jobs.calls() == 1);
            faults.blackhole("UpdateItem"); // no renewal reaches the table: the term runs out
            try {
                assertThat(mono.get(LEASE.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS))
                        .as("the subscription completes, empty")
                        .isNull();
                assertThat(jobs.finish()).as("the work was cancelled").isCancelled();
                assertThat(term.end()).contains(LeaseEnd.EXPIRED);
            } finally {
                faults.clear();
            }
        });
    }
}
