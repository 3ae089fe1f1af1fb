package io.locktable.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

@DynamoDbEngineTest
class DynamoDbEngineExtensionTest {

    @Test
    void injectsTheEngineItsClientAndATableWithTheDefaultKeys(
            DynamoDbEngine engine, DynamoDbClient client, TestTable table) {
        assertThat(client).isSameAs(engine.client());
        assertThat(engine.endpoint()).isNotNull();
        TableDescription description =
                client.describeTable(r -> r.tableName(table.name())).table();
        assertThat(description.keySchema())
                .anySatisfy(k -> assertThat(k.attributeName() + k.keyType()).isEqualTo("pk" + KeyType.HASH))
                .anySatisfy(k -> assertThat(k.attributeName() + k.keyType()).isEqualTo("sk" + KeyType.RANGE));
        assertThat(table.partitionKey()).isEqualTo("pk");
        assertThat(table.sortKey()).contains("sk");
        assertThat(table.name()).startsWith("DynamoDbEngineExtensionTest-");
    }

    @Test
    void givesOneTablePerClassAndKeyLayout(
            TestTable first,
            TestTable second,
            @TableKeys(partitionKey = "id", sortKey = "") TestTable plain,
            DynamoDbClient client) {
        assertThat(first).isEqualTo(second);
        assertThat(plain.name()).isNotEqualTo(first.name());
        assertThat(plain.sortKey()).isEmpty();
        assertThat(client.describeTable(r -> r.tableName(plain.name())).table().keySchema())
                .singleElement()
                .satisfies(k -> assertThat(k.attributeName()).isEqualTo("id"));
    }

    @Test
    void newClientsCarryTheirOwnInterceptors(DynamoDbEngine engine) {
        List<String> operations = new CopyOnWriteArrayList<>();
        ExecutionInterceptor recorder = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
            }
        };
        try (DynamoDbClient client = engine.newClient(o -> o.addExecutionInterceptor(recorder))) {
            client.listTables();
        }
        assertThat(operations).containsExactly("ListTables");
    }

    @Test
    void theEngineSaysWhetherItReturnsTheItemOnAConditionFailure(DynamoDbEngine engine, TestTable table) {
        Map<String, AttributeValue> item = Map.of(
                "pk",
                AttributeValue.fromS("probe"),
                "sk",
                AttributeValue.fromS("probe"),
                "v",
                AttributeValue.fromN("1"));
        engine.client().putItem(r -> r.tableName(table.name()).item(item));

        try {
            engine.client()
                    .putItem(r -> r.tableName(table.name())
                            .item(item)
                            .conditionExpression("attribute_not_exists(pk)")
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            throw new AssertionError("the condition should have failed");
        } catch (ConditionalCheckFailedException e) {
            boolean returned = e.hasItem() && !e.item().isEmpty();
            assertThat(returned).isEqualTo(engine.supports(EngineCapability.RETURNS_ITEM_ON_CONDITION_FAILURE));
        }
    }

    @Test
    void anUnknownEngineIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> DynamoDbEngines.select("oracle"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("oracle")
                .hasMessageContaining("dynalite");
        assertThatThrownBy(() -> ContainerEngines.start("", 8000, java.util.Set.of()))
                .hasMessageContaining("locktable.test.image");
    }

    @Test
    void theContainerEngineSaysClearlyWhenDockerIsAbsent() {
        org.junit.jupiter.api.Assumptions.assumeFalse(ContainerEngines.dockerAvailable(), "Docker runs here");
        assertThatThrownBy(() -> ContainerEngines.start("amazon/dynamodb-local", 8000, java.util.Set.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Docker")
                .hasMessageContaining("dynalite");
    }

    @Test
    void nodeVersionsAreRead() {
        assertThat(DynaliteServer.parseMajor("v20.20.2")).isEqualTo(20);
        assertThat(DynaliteServer.parseMajor("v18.1.0")).isEqualTo(18);
        assertThat(DynaliteServer.parseMajor("garbage")).isEqualTo(-1);
    }
}
