package io.locktable.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.test.LockTableEngineContainer;
import io.locktable.test.DynamoDbEngines;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * The sample started with {@code @ServiceConnection}: the container's endpoint wins over the sample's {@code
 * locktable.dynamodb.endpoint}. With Docker, the field would be a real container:
 *
 * <pre>{@code
 * @Container
 * @ServiceConnection(name = "locktable")
 * static GenericContainer<?> dynamodb = new GenericContainer<>("amazon/dynamodb-local:2.6.0").withExposedPorts(8000);
 * }</pre>
 *
 * <p>This project's machines have no Docker engine, so it is a {@link LockTableEngineContainer}, which starts nothing
 * and stands for lock-test's engine: the connection goes through Spring Boot's service-connection support and
 * lock-spring-boot-test's factory all the same.
 */
@SpringBootTest(
        properties = {
            "locktable.table-name=LeaderDemoServiceConnectionTest",
            "demo.instance=container",
            "demo.report.period=500ms",
            "demo.report.min-hold=400ms"
        })
class LeaderDemoServiceConnectionTest {

    @ServiceConnection(name = "locktable")
    static final LockTableEngineContainer dynamodb = new LockTableEngineContainer();

    @Autowired
    LockTable locks;

    @Autowired
    LeaderRunner leaders;

    @Autowired
    ReportLog reports;

    @Test
    void theSampleRunsItsJobsOnTheContainersEngine() {
        await().atMost(Duration.ofSeconds(20)).until(() -> leaders.isLeader("order-sweeper"));
        await().atMost(Duration.ofSeconds(20)).until(() -> !reports.all().isEmpty());
        assertThat(reports.all()).first().isEqualTo("container:1");
        assertThat(dynamodb.engine()).isSameAs(DynamoDbEngines.current());
        assertThat(locks.read("order-sweeper"))
                .as("the lock item is on the engine")
                .isPresent();
    }
}
