package io.locktable.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The health indicator of an instance that sends no request of its own: it asks the table, briefly cached. */
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
            LockTableHealthIndicator health =
                    new LockTableHealthIndicator(() -> locks, () -> null, Duration.ofMillis(500));

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
            LockTableHealthIndicator health = new LockTableHealthIndicator(() -> locks, () -> null);

            health.onRequestFailed("orders", new IllegalStateException("boom"));
            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("error", "IllegalStateException: boom");

            health.onRequestSucceeded("orders");
            Health up = health.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsOnlyKeys("table", "leading");
        }
    }
}
