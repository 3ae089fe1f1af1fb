package io.locktable.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The health indicator of an instance that sends no request of its own: it asks the table, briefly cached and
 * bounded by its timeout; and DOWN only once a failure lasted.
 */
@DynamoDbEngineTest
class LockTableHealthIndicatorTest {

    private final DynamoDbEngine engine;

    LockTableHealthIndicatorTest(DynamoDbEngine engine) {
        this.engine = engine;
    }

    @Test
    void describesTheTableWhenNoRequestWasSeenAndKeepsTheAnswerBriefly() {
        TestTable table = engine.createTable("HealthProbe", "pk", "sk");
        List<String> operations = new CopyOnWriteArrayList<>();
        ExecutionInterceptor recorder = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
            }
        };
        try (DynamoDbClient client = engine.newClient(o -> o.addExecutionInterceptor(recorder));
                LockTable locks = LockTable.builder(client, table.name(), "pk")
                        .sortKey("sk")
                        .build()) {
            LockTableHealthIndicator health = new LockTableHealthIndicator(
                    () -> locks, () -> null, Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ZERO);

            Health up = health.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("table", table.name()).containsEntry("leading", List.of());
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(operations).as("one DescribeTable for both checks").containsExactly("DescribeTable");

            engine.deleteTable(table.name());

            await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> health.health().getStatus().equals(Status.DOWN));
            Health down = health.health();
            assertThat((String) down.getDetails().get("error")).startsWith("ResourceNotFoundException: ");
            assertThat(down.getDetails()).containsKeys("table", "leading", "errorAt");
        } finally {
            engine.deleteTable(table.name());
        }
    }

    @Test
    void reportsDownOnlyOnceAFailureLastedWithoutASuccess() {
        try (LockTable locks =
                LockTable.builder(engine.client(), "NoSuchTable", "pk").build()) {
            ManualClock clock = new ManualClock();
            LockTableHealthIndicator health = new LockTableHealthIndicator(
                    () -> locks,
                    () -> null,
                    Duration.ofMinutes(10), // no probe: the requests tell
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(30),
                    clock);

            health.onRequestFailed("orders", new IllegalStateException("boom"));
            clock.advance(Duration.ofSeconds(29));
            health.onRequestFailed("orders", new IllegalStateException("boom again"));
            Health young = health.health();
            assertThat(young.getStatus()).isEqualTo(Status.UP);
            assertThat(young.getDetails())
                    .containsEntry("error", "IllegalStateException: boom again")
                    .containsKey("failingSince");

            health.onRequestSucceeded("orders");
            clock.advance(Duration.ofSeconds(2));
            health.onRequestFailed("orders", new IllegalStateException("boom"));
            clock.advance(Duration.ofSeconds(29));
            assertThat(health.health().getStatus())
                    .as("the success in between started the count again")
                    .isEqualTo(Status.UP);

            clock.advance(Duration.ofSeconds(1));
            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("error", "IllegalStateException: boom");
        }
    }

    @Test
    void aTableThatDoesNotAnswerIsAFailureAfterTheTimeoutAndChecksShareOneRequest() throws Exception {
        TestTable table = engine.createTable("HealthSlow", "pk", "sk");
        List<String> operations = new CopyOnWriteArrayList<>();
        CountDownLatch answer = new CountDownLatch(1);
        ExecutionInterceptor slow = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
                try {
                    answer.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        ExecutorService checks = Executors.newFixedThreadPool(2);
        try (DynamoDbClient client = engine.newClient(o -> o.addExecutionInterceptor(slow));
                LockTable locks = LockTable.builder(client, table.name(), "pk")
                        .sortKey("sk")
                        .build()) {
            LockTableHealthIndicator health = new LockTableHealthIndicator(
                    () -> locks, () -> null, Duration.ofSeconds(10), Duration.ofMillis(300), Duration.ZERO);

            Callable<Health> check = health::health;
            List<Future<Health>> concurrent = List.of(checks.submit(check), checks.submit(check));
            for (Future<Health> result : concurrent) {
                Health late = result.get(10, TimeUnit.SECONDS);
                assertThat(late.getStatus()).isEqualTo(Status.DOWN);
                assertThat((String) late.getDetails().get("error"))
                        .isEqualTo("DescribeTable did not answer within PT0.3S");
            }
            assertThat(operations).as("one request for both checks").containsExactly("DescribeTable");

            answer.countDown();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> health.health().getStatus().equals(Status.UP));
        } finally {
            answer.countDown();
            checks.shutdownNow();
            engine.deleteTable(table.name());
        }
    }

    /** A clock the test moves. */
    static final class ManualClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-02T10:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @Test
    void isUnknownWithoutALockTable() {
        LockTable none = null;
        LockTableHealthIndicator health = new LockTableHealthIndicator(() -> none, () -> null);
        assertThat(health.health().getStatus()).isEqualTo(Status.UNKNOWN);
    }

    @Test
    void reportsTheLastFailedRequestWithItsMessageOnlyAndSendsNoRequestWhileItIsFresh() {
        // a table that does not exist: a DescribeTable would fail, so an UP below shows that none was sent
        try (LockTable locks =
                LockTable.builder(engine.client(), "NoSuchTable", "pk").build()) {
            LockTableHealthIndicator health = new LockTableHealthIndicator(
                    () -> locks, () -> null, Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ZERO);

            health.onRequestFailed("orders", new IllegalStateException("boom"));
            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails())
                    .containsEntry("error", "IllegalStateException: boom")
                    .containsKeys("errorAt", "failingSince");

            health.onRequestSucceeded("orders");
            Health up = health.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsOnlyKeys("table", "leading");
        }
    }
}
