package io.locktable.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
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
        assertThat(table.name()).matches("(locktable-test-[0-9a-f]{8}-)?DynamoDbEngineExtensionTest-[0-9a-f]{8}");
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
    void injectsTheSharedAsynchronousClientAndMakesNewOnesWithTheirOwnInterceptors(
            DynamoDbEngine engine, DynamoDbAsyncClient client, TestTable table) throws Exception {
        assertThat(client).isSameAs(engine.asyncClient());
        assertThat(client.describeTable(r -> r.tableName(table.name()))
                        .get()
                        .table()
                        .tableName())
                .isEqualTo(table.name());
        List<String> operations = new CopyOnWriteArrayList<>();
        ExecutionInterceptor recorder = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
            }
        };
        try (DynamoDbAsyncClient own = engine.newAsyncClient(o -> o.addExecutionInterceptor(recorder))) {
            own.listTables().get();
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
                .hasMessageContaining("dynalite, moto, endpoint or container");
        assertThatThrownBy(() -> ContainerEngines.start("", 8000, Optional.empty()))
                .hasMessageContaining("locktable.test.image");
    }

    @Test
    void theContainerEngineIsSelectedAndAsksForItsImage() {
        assumeTrue(
                System.getProperty("locktable.test.image") == null && System.getenv("LOCKTABLE_TEST_IMAGE") == null,
                "an image is set for the container engine");
        assertThatThrownBy(() -> DynamoDbEngines.select("container"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs an image")
                .hasMessageContaining("locktable.test.image");
    }

    @Test
    void theContainerEngineSaysClearlyWhenDockerIsAbsent() {
        assumeFalse(ContainerEngines.dockerAvailable(), "Docker runs here");
        assertThatThrownBy(() -> ContainerEngines.start("amazon/dynamodb-local", 8000, Optional.empty()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Docker")
                .hasMessageContaining("dynalite");
    }

    @Test
    void theEndpointEngineNeedsAUrlWithAHost() {
        assumeTrue(
                System.getProperty("locktable.test.endpoint") == null
                        && System.getenv("LOCKTABLE_TEST_ENDPOINT") == null,
                "an endpoint is set");
        assertThatThrownBy(() -> DynamoDbEngines.select("endpoint"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("locktable.test.endpoint");
    }

    @Test
    void onlyALoopbackEngineIsLocal() {
        assertThat(dynaliteEngine(Optional.of(Set.of()), "").isLocal()).isTrue();
        assertThat(DynamoDbEngines.isLoopback(java.net.URI.create("http://localhost:8000")))
                .isTrue();
        assertThat(DynamoDbEngines.isLoopback(java.net.URI.create("https://dynamodb.eu-west-1.amazonaws.com")))
                .isFalse();
        assertThat(DynamoDbEngines.isLoopback(java.net.URI.create("http://10.0.0.7:8000")))
                .isFalse();
    }

    @Test
    void declaredCapabilitiesAreParsedAndUnknownNamesRefused() {
        assertThat(DynamoDbEngines.parseCapabilities(null)).isEmpty();
        assertThat(DynamoDbEngines.parseCapabilities(" ")).isEmpty();
        assertThat(DynamoDbEngines.parseCapabilities("none")).contains(Set.of());
        assertThat(DynamoDbEngines.parseCapabilities("transactions, RETURNS_ITEM_ON_CONDITION_FAILURE"))
                .contains(Set.of(EngineCapability.TRANSACTIONS, EngineCapability.RETURNS_ITEM_ON_CONDITION_FAILURE));
        assertThatThrownBy(() -> DynamoDbEngines.parseCapabilities("TRANSACTIONS,acid"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'acid'")
                .hasMessageContaining("locktable.test.capabilities")
                .hasMessageContaining("TIME_TO_LIVE");
    }

    @Test
    void dynaliteIsProbedAndLacksWhatItsDocumentationSays() {
        HttpEngine dynalite = dynaliteEngine(Optional.empty(), "");
        assertThat(dynalite.capabilities()).isEmpty();
        assertThat(dynalite.toString())
                .contains("probed []")
                .contains("no TRANSACTIONS: TransactWriteItems answered UnknownOperationException")
                .contains("no RETURNS_ITEM_ON_CONDITION_FAILURE: a ConditionalCheckFailedException came without")
                .contains("no TIME_TO_LIVE: UpdateTimeToLive answered UnknownOperationException");
    }

    @Test
    void aDeclaredCapabilityTheEngineLacksStopsTheRunWithWhatItAnswered() {
        HttpEngine dynalite = dynaliteEngine(Optional.of(Set.of(EngineCapability.TRANSACTIONS)), "");
        assertThatThrownBy(dynalite::capabilities)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("locktable.test.capabilities names TRANSACTIONS")
                .hasMessageContaining("UnknownOperationException");
        assertThat(dynaliteEngine(Optional.of(Set.of()), "").toString()).contains("declared []");
    }

    @Test
    void theTablesOfARunCarryItsPrefixAndThoseLeftBehindAreDeleted() {
        String prefix = DynamoDbEngines.runPrefix();
        assertThat(prefix).matches("locktable-test-[0-9a-f]{8}-");
        HttpEngine engine = dynaliteEngine(Optional.of(Set.of()), prefix);
        TestTable created = engine.createTable("Leftover", "pk", null);
        String named = engine.uniqueTableName("NamedOnly");
        assertThat(named).startsWith(prefix + "NamedOnly-");
        createdElsewhere(engine.client(), named);
        TestTable deleted = engine.createTable("Deleted", "pk", null);
        engine.deleteTable(deleted.name());

        List<String> removed = engine.deleteLeftoverTables();

        assertThat(removed).containsExactlyInAnyOrder(created.name(), named);
        assertThat(engine.client().listTables().tableNames()).noneMatch(table -> table.startsWith(prefix));
    }

    private static HttpEngine dynaliteEngine(Optional<Set<EngineCapability>> declared, String prefix) {
        return new HttpEngine(
                "dynalite",
                DynaliteServer.shared().endpoint(),
                Region.US_EAST_1,
                DynamoDbEngines.LOCAL_CREDENTIALS,
                declared,
                prefix);
    }

    private static void createdElsewhere(DynamoDbClient client, String table) {
        client.createTable(r -> r.tableName(table)
                .keySchema(KeySchemaElement.builder()
                        .attributeName("id")
                        .keyType(KeyType.HASH)
                        .build())
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName("id")
                        .attributeType(ScalarAttributeType.S)
                        .build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
    }

    @Test
    void nodeVersionsAreRead() {
        assertThat(DynaliteServer.parseMajor("v20.20.2")).isEqualTo(20);
        assertThat(DynaliteServer.parseMajor("v18.1.0")).isEqualTo(18);
        assertThat(DynaliteServer.parseMajor("garbage")).isEqualTo(-1);
    }
}
