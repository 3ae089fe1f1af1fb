package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.test.EngineCapability;
import io.locktable.test.MotoServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The README's fenced write in an application's test that asks for transactions: it runs on an engine that has them
 * (moto, when the run selected no engine), so the write is applied, not refused with an ERROR the test never sees.
 * {@code ./mvnw verify} needs only a JDK and Node.js: where the run selected no engine and moto is not installed, this
 * test is skipped with the reason (that {@code register} then fails the test is {@link EngineChoiceTest}'s subject).
 */
@SpringBootTest(classes = FencedWriteTest.App.class)
class FencedWriteTest {

    /** Skips the test where the run selected no engine and moto, which {@code register} would then use, is missing. */
    @BeforeAll
    static void motoWhereNoEngineIsSelected() {
        String selection = LockTableTestProperties.selection();
        Assumptions.assumeTrue(
                (selection != null && !selection.isBlank()) || MotoServer.isInstalled(),
                "no engine selected, and lock-test's moto, the local engine with transactions, is not installed"
                        + " (pip install 'moto[server]', or -Dlocktable.test.engine=moto)");
    }

    @DynamicPropertySource
    static void lockTable(DynamicPropertyRegistry registry) {
        LockTableTestProperties.register(registry, EngineCapability.TRANSACTIONS);
    }

    @Autowired
    LockTable locks;

    @Autowired
    DynamoDbClient client;

    @Test
    void aFencedWriteIsApplied() {
        try (Lease lease = locks.tryAcquire("sweeper", Duration.ofSeconds(5)).orElseThrow()) {
            Map<String, AttributeValue> record = Map.of(
                    "pk", AttributeValue.fromS("SWEEP#1"), "token", AttributeValue.fromN("" + lease.fencingToken()));
            client.transactWriteItems(r -> r.transactItems(
                    lease.heldCheck(),
                    TransactWriteItem.builder()
                            .put(Put.builder()
                                    .tableName(locks.tableName())
                                    .item(record)
                                    .build())
                            .build()));
        }

        assertThat(client.getItem(r -> r.tableName(locks.tableName())
                                .key(Map.of("pk", AttributeValue.fromS("SWEEP#1")))
                                .consistentRead(true))
                        .item())
                .containsEntry("token", AttributeValue.fromN("1"));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}
}
