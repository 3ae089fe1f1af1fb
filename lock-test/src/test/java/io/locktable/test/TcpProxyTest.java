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
    void droppedRepliesLeaveTheRequestAppliedAndTheClientUninformed() {
        proxy.mode(TcpProxy.Mode.DROP_REPLIES);

        assertThatThrownBy(() -> client.putItem(r -> r.tableName(table.name()).item(item("applied"))))
                .isInstanceOf(SdkClientException.class);

        assertThat(stored("applied")).isTrue();
        assertThat(proxy.droppedReplies()).isPositive();
    }
}
