package io.locktable.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/** What each fault does to a request, seen through a client without retries on the real engine. */
@DynamoDbEngineTest
class FaultInjectorTest {

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final FaultInjector faults = new FaultInjector();

    @AutoClose
    private final DynamoDbClient client;

    FaultInjectorTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.client = engine.clientBuilder()
                .overrideConfiguration(
                        o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).addExecutionInterceptor(faults))
                .build();
    }

    @Test
    void aLostReplyComesAfterTheEngineAppliedTheWrite() {
        faults.loseReply("PutItem", 1);

        assertThatThrownBy(() -> put("lost-reply", "1")).isInstanceOf(SdkClientException.class);

        assertThat(read("lost-reply")).containsEntry("v", AttributeValue.fromS("1"));
        assertThat(faults.injected()).isEqualTo(1);
    }

    @Test
    void aFailureBeforeSendLeavesTheTableUnchangedAndCountsDown() {
        faults.failBeforeSend("PutItem", 1);

        assertThatThrownBy(() -> put("failed", "1")).isInstanceOf(SdkClientException.class);
        assertThat(read("failed")).isEmpty();
        put("failed", "2"); // the rule was for one attempt
        assertThat(read("failed")).containsEntry("v", AttributeValue.fromS("2"));
    }

    @Test
    void throttlingAndInternalErrorsAnswerAsTheEngineWould() {
        faults.throttle("PutItem", 1).internalError("PutItem", 1);

        assertThatThrownBy(() -> put("throttled", "1")).isInstanceOfSatisfying(DynamoDbException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.isThrottlingException()).isTrue();
        });
        assertThatThrownBy(() -> put("throttled", "1"))
                .isInstanceOfSatisfying(
                        DynamoDbException.class, e -> assertThat(e.statusCode()).isEqualTo(500));
        assertThat(read("throttled")).isEmpty();
    }

    @Test
    void anAnswerRewrittenAndAConditionFailureWithoutItsItem() {
        faults.rewriteResponse(
                        "DescribeTable",
                        response -> ((DescribeTableResponse) response)
                                .toBuilder()
                                        .table(t -> t.tableName("rewritten").globalTableVersion("2017.11.29"))
                                        .build())
                .withoutItemOnConditionFailure();
        put("held", "1");

        assertThat(client.describeTable(r -> r.tableName(table.name())).table().globalTableVersion())
                .isEqualTo("2017.11.29");
        assertThatThrownBy(() -> client.putItem(r -> r.tableName(table.name())
                        .item(item("held", "2"))
                        .conditionExpression("attribute_not_exists(v)")
                        .returnValuesOnConditionCheckFailure("ALL_OLD")))
                .isInstanceOfSatisfying(
                        ConditionalCheckFailedException.class,
                        e -> assertThat(e.hasItem()).isFalse());
    }

    @Test
    void anActionRunsWhileTheRequestIsOnItsWay() {
        faults.beforeSend("GetItem", () -> put("meanwhile", "written during the read"), 1);

        assertThat(read("meanwhile")).containsEntry("v", AttributeValue.fromS("written during the read"));
    }

    private void put(String id, String value) {
        client.putItem(r -> r.tableName(table.name()).item(item(id, value)));
    }

    private Map<String, AttributeValue> read(String id) {
        return client.getItem(r -> r.tableName(table.name()).key(key(id)).consistentRead(true))
                .item();
    }

    private Map<String, AttributeValue> item(String id, String value) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(key(id));
        item.put("v", AttributeValue.fromS(value));
        return item;
    }

    private Map<String, AttributeValue> key(String id) {
        Map<String, AttributeValue> key = new java.util.HashMap<>();
        key.put(table.partitionKey(), AttributeValue.fromS("FAULT#" + id + "#" + engine.name()));
        table.sortKey().ifPresent(sk -> key.put(sk, AttributeValue.fromS("X")));
        return key;
    }
}
