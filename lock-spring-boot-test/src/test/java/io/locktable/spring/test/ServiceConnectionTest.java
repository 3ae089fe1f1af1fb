package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LockedRun;
import io.locktable.spring.autoconfigure.LockTableConnectionDetails;
import io.locktable.test.DynamoDbEngines;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Import;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code @ServiceConnection} on a container wires the starter: Spring Boot's own service-connection support finds the
 * field, asks this module's factory for {@link LockTableConnectionDetails}, and the starter builds its client from
 * them. No Docker engine runs on the machines of this project, so the container is a {@link LockTableEngineContainer}
 * that starts nothing and stands for lock-test's engine; with Docker, a real {@code GenericContainer} goes in its
 * place and nothing else changes.
 */
@SpringBootTest(
        classes = ServiceConnectionTest.App.class,
        properties = {"locktable.table-name=ServiceConnectionTest", "locktable.create-table=true"})
class ServiceConnectionTest {

    @ServiceConnection(name = "locktable")
    static final LockTableEngineContainer dynamodb = new LockTableEngineContainer();

    @Autowired
    LockTableConnectionDetails connection;

    @Autowired
    DynamoDbClient client;

    @Autowired
    LockTable locks;

    @Autowired
    Job job;

    @Test
    void theContainersEndpointIsTheOneOfTheStartersClient() {
        assertThat(connection).isInstanceOf(LockTableContainerConnectionDetailsFactory.ContainerDetails.class);
        assertThat(connection.getEndpoint()).isEqualTo(DynamoDbEngines.current().endpoint());
        assertThat(client.serviceClientConfiguration().endpointOverride())
                .contains(DynamoDbEngines.current().endpoint());
        assertThat(locks.tableName()).isEqualTo("ServiceConnectionTest");
        assertThat(job.run())
                .as("a @LockedRun call takes its lock on the engine")
                .isPresent();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Job.class)
    static class App {}

    static class Job {
        @LockedRun
        public Optional<Long> run() {
            return Lease.current().map(Lease::fencingToken);
        }
    }
}
