package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngines;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** {@link LockTableTestProperties} points the starter at lock-test's engine, with a fresh table of its own. */
@SpringBootTest(classes = LockTableTestPropertiesTest.App.class)
class LockTableTestPropertiesTest {

    @DynamicPropertySource
    static void lockTable(DynamicPropertyRegistry registry) {
        LockTableTestProperties.register(registry);
    }

    @Autowired
    LockTable locks;

    @Autowired
    DynamoDbClient client;

    @Autowired
    ApplicationContext context;

    @Test
    void theStarterUsesTheEngineAndCreatesItsTable() {
        assertThat(client.serviceClientConfiguration().endpointOverride())
                .contains(DynamoDbEngines.current().endpoint());
        assertThat(locks.tableName()).contains("locks");
        assertThat(locks.tryAcquire("registered", Duration.ofSeconds(2))).isPresent();
        assertThat(context.getEnvironment().getProperty("locktable.test.unsupported-requests"))
                .as("a request the engine refuses as unsupported fails the test")
                .isEqualTo("fail");
        assertThat(context.getBeanProvider(RefusedRequests.class).getIfAvailable())
                .isNotNull();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}
}
