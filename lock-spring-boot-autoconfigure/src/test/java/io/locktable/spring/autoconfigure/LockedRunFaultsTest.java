package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LeaseEnd;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.actuate.DefaultLockedRunObservationConvention;
import io.locktable.spring.actuate.LocksEndpoint;
import io.locktable.spring.autoconfigure.LockedRunTest.Events;
import io.locktable.spring.autoconfigure.LockedRunTest.Jobs;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One context on the real engine, its client's requests failed on purpose: a {@code @LockedRun} call whose acquire
 * fails is skipped, and one whose lease is lost runs on and is told through the lease, its events, observation and
 * endpoint entry. The rest of {@code @LockedRun} is in {@link LockedRunTest}, over the in-memory table.
 */
@DynamoDbEngineTest
class LockedRunFaultsTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private final FaultInjector faults = new FaultInjector();
    private final ApplicationContextRunner runner;

    LockedRunFaultsTest(DynamoDbEngine engine, TestTable table) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(StarterAutoConfigurations.LOCKED_RUNS)
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(faults)))
                .withBean(Jobs.class)
                .withBean(Events.class)
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=" + LEASE.toMillis() + "ms",
                        "management.endpoints.web.exposure.include=locks");
    }

    @Test
    void aFailedAcquireSkipsTheCall() {
        runner.run(context -> {
            faults.blackhole("UpdateItem");
            faults.blackhole("GetItem");
            try {
                assertThat(context.getBean(Jobs.class).bound()).isEmpty();
            } finally {
                faults.clear();
            }
            Events events = context.getBean(Events.class);
            await().atMost(MARGIN).until(() -> !events.of("Jobs.bound").isEmpty());
            assertThat(events.of("Jobs.bound").get(0)).satisfies(skipped -> {
                assertThat(skipped.kind()).isEqualTo(LockedRunEvent.Kind.SKIPPED);
                assertThat(skipped.skipReason()).contains(LockedRunEvent.SkipReason.ERROR);
            });
            assertThat(context.getBean(Jobs.class).bound())
                    .as("the next call, once it answers")
                    .isPresent();
        });
    }

    @Test
    void aRunThatLosesItsLeaseWithoutInterruptionRunsOnAndIsToldThroughTheLease() {
        TestObservationRegistry observations = TestObservationRegistry.create();
        runner.withConfiguration(AutoConfigurations.of(LockTableObservationAutoConfiguration.class))
                .withBean(ObservationRegistry.class, () -> observations)
                .run(context -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    CountDownLatch entered = new CountDownLatch(1);
                    CountDownLatch release = new CountDownLatch(1);
                    CompletableFuture<Boolean> running =
                            CompletableFuture.supplyAsync(() -> jobs.blocks(entered, release));
                    assertThat(entered.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                            .isTrue();
                    LocksEndpoint.RunDescriptor shown =
                            context.getBean(LocksEndpoint.class).locks().runs().get(0);
                    assertThat(shown.name()).isEqualTo("blocks");
                    assertThat(shown.fencingToken()).isEqualTo(jobs.seen().fencingToken());
                    assertThat(shown.startedAt()).isNotNull();

                    faults.blackhole("UpdateItem"); // no renewal reaches the table: the lease runs out
                    try {
                        await().atMost(LEASE.plus(MARGIN))
                                .until(() -> !jobs.seen().isHeld());
                        Events events = context.getBean(Events.class);
                        await().atMost(MARGIN).until(() -> events.of("blocks").size() == 2);
                        assertThat(events.of("blocks").get(1)).satisfies(lost -> {
                            assertThat(lost.kind()).isEqualTo(LockedRunEvent.Kind.LOST);
                            assertThat(lost.leaseEnd()).contains(LeaseEnd.EXPIRED);
                        });
                        release.countDown();
                        assertThat(running.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS))
                                .as("not interrupted, and Lease.current() ended")
                                .isFalse();
                        await().atMost(MARGIN).until(() -> events.of("blocks").size() == 3);
                        assertThat(events.of("blocks").get(2)).satisfies(ended -> {
                            assertThat(ended.kind()).isEqualTo(LockedRunEvent.Kind.ENDED);
                            assertThat(ended.outcome()).contains(LockedRunEvent.Outcome.LOST);
                        });
                        TestObservationRegistryAssert.assertThat(observations)
                                .hasObservationWithNameEqualTo(DefaultLockedRunObservationConvention.NAME)
                                .that()
                                .hasBeenStopped()
                                .hasLowCardinalityKeyValue("lock", "blocks")
                                .hasLowCardinalityKeyValue("outcome", "lost");
                        assertThat(context.getBean(LocksEndpoint.class).locks().runs())
                                .isEmpty();
                    } finally {
                        faults.clear();
                    }
                });
    }
}
