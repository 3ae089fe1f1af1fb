package io.locktable.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.spring.LeaderRunner;
import io.locktable.spring.actuate.ActuatorApp.Actuator;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.TestTable;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/** {@code /actuator/health} of a leader over HTTP: UP with what it leads, DOWN once its table is deleted. */
@SpringBootTest(classes = ActuatorApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockTableHealthTest {

    private static final String JOB = "health-job";
    private static TestTable table;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        table = DynamoDbEngines.current().createTable("LockTableHealthTest", "pk", "sk");
        for (String property : ActuatorApp.properties(table, "node-h", JOB, "locktable.health.down-after=0")) {
            int split = property.indexOf('=');
            registry.add(property.substring(0, split), () -> property.substring(split + 1));
        }
    }

    @LocalServerPort
    private int port;

    @Autowired
    private LeaderRunner runner;

    @AfterAll
    void deleteTable() {
        DynamoDbEngines.current().deleteTable(table.name());
    }

    @Test
    void isUpWithTheLeadershipsThenDownWithTheErrorOnceTheTableIsGone() {
        Actuator actuator = new Actuator(port);
        await().atMost(ActuatorApp.LEASE.multipliedBy(3)).until(() -> runner.isLeader(JOB));

        Actuator.Response up = actuator.get("/actuator/health");
        assertThat(up.status()).isEqualTo(200);
        JsonNode healthy = up.json().get("components").get("locktable");
        assertThat(healthy.get("status").asString()).isEqualTo("UP");
        assertThat(healthy.get("details").get("table").asString()).isEqualTo(table.name());
        assertThat(healthy.get("details").get("leading").valueStream().map(JsonNode::asString))
                .containsExactly(JOB);

        DynamoDbEngines.current().deleteTable(table.name());

        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Actuator.Response health = actuator.get("/actuator/health");
            return health.status() == 503
                    && health.json()
                            .get("components")
                            .get("locktable")
                            .get("details")
                            .get("leading")
                            .isEmpty();
        });
        Actuator.Response down = actuator.get("/actuator/health");
        assertThat(down.status()).isEqualTo(503);
        JsonNode failing = down.json().get("components").get("locktable");
        assertThat(failing.get("status").asString()).isEqualTo("DOWN");
        assertThat(failing.get("details").get("error").asString()).contains("ResourceNotFoundException");
        assertThat(down.body()).doesNotContain("\tat ").doesNotContain("stackTrace");
    }
}
