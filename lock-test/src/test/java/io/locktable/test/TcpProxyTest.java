package io.locktable.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

@DynamoDbEngineTest
class TcpProxyTest {

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final TcpProxy proxy;

    @AutoClose
    private final DynamoDbClient client;

    TcpProxyTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        assumeTrue(TcpProxy.supports(engine.endpoint()), "engine " + engine.name() + " is reached over TLS");
        this.proxy = TcpProxy.start(engine.endpoint());
        this.client = engine.clientBuilder()
                .endpointOverride(proxy.endpoint())
                .overrideConfiguration(
                        o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(Duration.ofMillis(800)))
                .build();
    }

    private Map<String, AttributeValue> item(String id) {
        return Map.of("pk", AttributeValue.fromS(id), "sk", AttributeValue.fromS(id));
    }

    private boolean stored(String id) {
        return engine.client()
                .getItem(r -> r.tableName(table.name()).key(item(id)).consistentRead(true))
                .hasItem();
    }

    @Test
    void refusesATlsEndpoint() {
        assertThat(TcpProxy.supports(java.net.URI.create("https://dynamodb.eu-west-1.amazonaws.com")))
                .isFalse();
        assertThatThrownBy(() -> TcpProxy.start(java.net.URI.create("https://dynamodb.eu-west-1.amazonaws.com")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plain http");
    }

    @Test
    void passesRequestsAndRepliesThrough() {
        client.putItem(r -> r.tableName(table.name()).item(item("through")));

        assertThat(stored("through")).isTrue();
        assertThat(proxy.acceptedConnections()).isPositive();
    }

    @Test
    void aBlackholeLeavesRequestsUnansweredAndUnappliedUntilTheClientGivesUp() {
        client.listTables(); // a pooled connection, which stalls too
        proxy.mode(TcpProxy.Mode.BLACKHOLE);

        assertThatThrownBy(() -> client.putItem(r -> r.tableName(table.name()).item(item("holed"))))
                .isInstanceOf(ApiCallTimeoutException.class);
        assertThat(stored("holed")).isFalse();

        proxy.mode(TcpProxy.Mode.PASS);
        client.putItem(r -> r.tableName(table.name()).item(item("after")));
        assertThat(stored("after")).isTrue();
    }

    @Test
    void aResetFailsRequestsAtOnce() {
        client.listTables();
        proxy.mode(TcpProxy.Mode.RESET);

        long start = System.nanoTime();
        assertThatThrownBy(() -> client.putItem(r -> r.tableName(table.name()).item(item("reset"))))
                .isInstanceOf(SdkClientException.class)
                .isNotInstanceOf(ApiCallTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(800));
        assertThat(stored("reset")).isFalse();
    }

    @Test
    void aDelayHoldsRequestsAndRepliesBackAndKeepsTheirBytesInOrder() {
        String payload = "0123456789abcdef".repeat(20_000); // 320 KB: many reads and writes of the proxy each way
        Duration requests = Duration.ofMillis(60);
        Duration replies = Duration.ofMillis(90);
        try (DynamoDbClient patient = engine.clientBuilder()
                .endpointOverride(proxy.endpoint())
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(30)))
                .build()) {
            patient.listTables(); // a pooled connection that carries bytes before the delay and after it
            proxy.delay(requests, replies);

            long start = System.nanoTime();
            patient.putItem(r -> r.tableName(table.name())
                    .item(Map.of(
                            "pk", AttributeValue.fromS("slow"),
                            "sk", AttributeValue.fromS("slow"),
                            "payload", AttributeValue.fromS(payload))));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            String read = patient.getItem(
                            r -> r.tableName(table.name()).key(item("slow")).consistentRead(true))
                    .item()
                    .get("payload")
                    .s();

            // a lower bound only: the bytes cannot arrive before their delays have passed
            assertThat(took).isGreaterThanOrEqualTo(requests.plus(replies));
            assertThat(read).isEqualTo(payload);

            proxy.delay(Duration.ZERO, Duration.ZERO);
            patient.putItem(r -> r.tableName(table.name()).item(item("undelayed")));
            assertThat(stored("undelayed")).isTrue();
        }
    }

    @Test
    void theModesStillApplyToDelayedBytes() {
        proxy.delay(Duration.ofMillis(20), Duration.ofMillis(20));
        proxy.mode(TcpProxy.Mode.DROP_REPLIES);

        assertThatThrownBy(() -> client.putItem(r -> r.tableName(table.name()).item(item("delayed-applied"))))
                .isInstanceOf(SdkClientException.class);

        assertThat(stored("delayed-applied")).isTrue();
        assertThat(proxy.droppedReplies()).isPositive();
    }

    @Test
    void refusesANegativeDelay() {
        assertThatThrownBy(() -> proxy.delay(Duration.ofMillis(-1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void droppedRepliesLeaveTheRequestAppliedAndTheClientUninformed() {
        proxy.mode(TcpProxy.Mode.DROP_REPLIES);

        assertThatThrownBy(() -> client.putItem(r -> r.tableName(table.name()).item(item("applied"))))
                .isInstanceOf(SdkClientException.class);

        assertThat(stored("applied")).isTrue();
        assertThat(proxy.droppedReplies()).isPositive();
    }
}
