package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbSortKey;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ReplicaDescription;
import software.amazon.awssdk.services.dynamodb.model.ReplicatedWriteConflictException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

@DynamoDbEngineTest
class ValidationTest {

    private static final Duration LEASE = Duration.ofSeconds(5);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    ValidationTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aMissingTableGivesResourceNotFound() {
        LockTable locks =
                LockTable.builder(engine.client(), "no-such-table", "pk").build();
        try (locks) {
            assertThatThrownBy(() -> locks.tryAcquire("a", LEASE)).isInstanceOf(ResourceNotFoundException.class);
            assertThatThrownBy(() -> locks.acquire("a", LEASE)).isInstanceOf(ResourceNotFoundException.class);
            assertThatThrownBy(locks::verify).isInstanceOf(ResourceNotFoundException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"no-type", "other-type", "owner-without-rvn", "fence-not-a-number", "rvn-not-a-string"})
    void aForeignItemIsRefusedAndLeftUnchanged(String kind) throws Exception {
        String name = Contenders.lockName();
        Map<String, AttributeValue> item = new HashMap<>(contenders.key(name));
        switch (kind) {
            case "no-type" -> item.put("status", AttributeValue.fromS("ACTIVE"));
            case "other-type" -> {
                item.put("_type", AttributeValue.fromS("ORDER"));
                item.put("owner", AttributeValue.fromS("a customer"));
            }
            case "owner-without-rvn" -> {
                item.put("_type", AttributeValue.fromS("LOCK"));
                item.put("owner", AttributeValue.fromS("someone"));
            }
            case "fence-not-a-number" -> {
                item.put("_type", AttributeValue.fromS("LOCK"));
                item.put("fence", AttributeValue.fromS("seven"));
            }
            default -> {
                item.put("_type", AttributeValue.fromS("LOCK"));
                item.put("owner", AttributeValue.fromS("someone"));
                item.put("rvn", AttributeValue.fromN("3"));
                item.put("fence", AttributeValue.fromN("3"));
                item.put("leaseMs", AttributeValue.fromN("3000"));
            }
        }
        engine.client().putItem(r -> r.tableName(table.name()).item(item));
        Contenders.Contender a = contenders.add();

        assertThatThrownBy(() -> a.locks().tryAcquire(name, LEASE))
                .isInstanceOf(LockItemConflictException.class)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(table.name());
        assertThatThrownBy(() -> a.locks().acquire(name, LEASE, LEASE)).isInstanceOf(LockItemConflictException.class);
        assertThatThrownBy(() -> a.locks().read(name)).isInstanceOf(LockItemConflictException.class);

        assertThat(contenders.item(name)).isEqualTo(item);
    }

    /**
     * Issue 37: a plain moto_server, under concurrent acquires, answered one with a condition failure carrying a
     * half-written item (its key only) that was never there. The message names the engine, not an item to move.
     */
    @Test
    void aWriteAnswerShowingAForeignItemThatIsNotThereNamesTheEngineNotTheItem() {
        String name = Contenders.lockName();
        Contenders.Contender a = contenders.add();
        a.faults()
                .failWith(
                        "UpdateItem",
                        () -> (ConditionalCheckFailedException) FaultInjector.engineError(
                                ConditionalCheckFailedException.builder().item(contenders.key(name)),
                                400,
                                "ConditionalCheckFailedException",
                                "The conditional request failed"),
                        1);

        assertThatThrownBy(() -> a.locks().tryAcquire(name, LEASE))
                .isInstanceOf(LockItemConflictException.class)
                .hasMessage("The DynamoDB engine answered inconsistently about lock '" + name + "' in table '"
                        + table.name() + "': the answer to a conditional write showed an item that is not a lock item"
                        + " (it has no _type attribute), but a strongly consistent read right after finds no item. An"
                        + " engine that does not apply conditional writes atomically answers so under concurrent"
                        + " requests (a plain moto_server does; DynamoDB does not), and it can grant one lock twice."
                        + " Use DynamoDB, or locally LockTable's ./local-engine.sh (moto served one request at a"
                        + " time).")
                .message()
                .doesNotContain("move");
        assertThat(a.locks().tryAcquire(name, LEASE))
                .as("the engine itself has no item there")
                .isPresent();
    }

    @Test
    void aForeignItemThatIsThereIsToldToBeMovedOrAnotherNameUsed() {
        String name = Contenders.lockName();
        Map<String, AttributeValue> item = new HashMap<>(contenders.key(name));
        item.put("status", AttributeValue.fromS("ACTIVE"));
        engine.client().putItem(r -> r.tableName(table.name()).item(item));

        assertThatThrownBy(() -> contenders.add().locks().tryAcquire(name, LEASE))
                .hasMessage("The item of lock '" + name + "' in table '" + table.name() + "' is not a lock item"
                        + " written by LockTable (it has no _type attribute); it was left unchanged. Use another lock"
                        + " name, or move that item away from the lock's key.");
    }

    @Test
    void closeReleasesEveryLeaseAndRefusesNewAcquires() throws Exception {
        Contenders.Contender a = contenders.add();
        Contenders.Contender b = contenders.add();
        String one = Contenders.lockName();
        String two = Contenders.lockName();
        Lease first = a.locks().tryAcquire(one, LEASE).orElseThrow();
        Lease second = a.locks().tryAcquire(two, LEASE).orElseThrow();

        a.locks().close();
        a.locks().close();

        assertThat(first.whenEnded().get(1, TimeUnit.SECONDS)).isEqualTo(LeaseEnd.CLOSED);
        assertThat(second.whenEnded().get(1, TimeUnit.SECONDS)).isEqualTo(LeaseEnd.CLOSED);
        assertThat(contenders.item(one)).doesNotContainKey("owner");
        assertThat(contenders.item(two)).doesNotContainKey("owner");
        assertThat(b.locks().tryAcquire(one, LEASE)).isPresent();
        assertThatThrownBy(() -> a.locks().tryAcquire(one, LEASE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void verifyAcceptsTheTableAndRefusesWrongKeys() {
        contenders.add().locks().verify();
        LockTable wrongKey =
                LockTable.builder(engine.client(), table.name(), "id").build();
        assertThatThrownBy(wrongKey::verify)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(table.name())
                .hasMessageContaining("partition key");
        LockTable missingSortKey = LockTable.builder(engine.client(), table.name(), table.partitionKey())
                .build();
        assertThatThrownBy(missingSortKey::verify).hasMessageContaining("sort key");
        wrongKey.close();
        missingSortKey.close();
    }

    @Test
    void verifyRefusesAGlobalTableOfThe2017VersionAndOneWithEventuallyConsistentReplicas() {
        Contenders.Contender legacy = contenders.add();
        legacy.faults().rewriteResponse("DescribeTable", describedAs(t -> t.globalTableVersion("2017.11.29")));
        assertThatThrownBy(legacy.locks()::verify)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(table.name())
                .hasMessageContaining("2017.11.29");

        Contenders.Contender eventual = contenders.add();
        eventual.faults()
                .rewriteResponse(
                        "DescribeTable",
                        describedAs(t -> t.globalTableVersion("2019.11.21")
                                .replicas(replica("eu-west-1"), replica("us-west-2"))
                                .multiRegionConsistency(MultiRegionConsistency.EVENTUAL)));
        assertThatThrownBy(eventual.locks()::verify)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("eventual consistency");
    }

    @Test
    void verifyAcceptsAGlobalTableWithMultiRegionStrongConsistencyWhereFencedWritesThenFailAtOnce() {
        Contenders.Contender strong = contenders.add();
        strong.faults().rewriteResponse("DescribeTable", describedAs(ValidationTest::multiRegionStrong));

        strong.locks().verify();
        Lease lease = strong.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();

        assertThatThrownBy(lease::heldCheck)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("multi-Region strong consistency")
                .hasMessageContaining(table.name());
        assertThatThrownBy(() -> lease.transactWrite()).hasMessageContaining("multi-Region strong consistency");
        assertThat(strong.requests().count("TransactWriteItems")).isZero();
        assertThat(lease.isHeld()).isTrue();

        Contenders.Contender withTimeToLive = contenders.add(b -> b.options(LockTableOptions.builder()
                .timeToLive("expiresAt", Duration.ofHours(1))
                .build()));
        withTimeToLive.faults().rewriteResponse("DescribeTable", describedAs(ValidationTest::multiRegionStrong));
        assertThatThrownBy(withTimeToLive.locks()::verify).hasMessageContaining("no time to live");
    }

    @Test
    void aWriteFromAnotherRegionThatCameFirstIsATransientFailureOfARenewal() throws Exception {
        Contenders.Contender holder = contenders.add(b -> {}, o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        Lease lease = holder.locks()
                .tryAcquire(Contenders.lockName(), Duration.ofSeconds(2))
                .orElseThrow();
        holder.faults()
                .failWith(
                        "UpdateItem",
                        () -> FaultInjector.engineError(
                                ReplicatedWriteConflictException.builder(),
                                400,
                                "ReplicatedWriteConflictException",
                                "One or more items in this request are being modified by a request in another Region"),
                        2);

        Thread.sleep(Duration.ofSeconds(4).toMillis());

        assertThat(holder.faults().injected()).isEqualTo(2);
        assertThat(lease.isHeld()).isTrue();
        assertThat(LockStore.isTransient(
                        ReplicatedWriteConflictException.builder().message("x").build()))
                .isTrue();
    }

    private static TableDescription.Builder multiRegionStrong(TableDescription.Builder table) {
        return table.globalTableVersion("2019.11.21")
                .replicas(replica("eu-west-1"), replica("us-west-2"))
                .multiRegionConsistency(MultiRegionConsistency.STRONG);
    }

    /** A DescribeTable answer rewritten as a table of another kind would be described. */
    private static UnaryOperator<SdkResponse> describedAs(UnaryOperator<TableDescription.Builder> change) {
        return response -> {
            DescribeTableResponse described = (DescribeTableResponse) response;
            return described.toBuilder()
                    .table(change.apply(described.table().toBuilder()).build())
                    .build();
        };
    }

    /** An entity of a single-table design, for the enhanced client. */
    @DynamoDbBean
    public static class Order {
        private String pk;
        private String sk;

        @DynamoDbPartitionKey
        public String getPk() {
            return pk;
        }

        public void setPk(String pk) {
            this.pk = pk;
        }

        @DynamoDbSortKey
        public String getSk() {
            return sk;
        }

        public void setSk(String sk) {
            this.sk = sk;
        }
    }

    @Test
    void forTableTakesTheNameAndKeysOfAnEnhancedClientTable() {
        DynamoDbEnhancedClient enhanced =
                DynamoDbEnhancedClient.builder().dynamoDbClient(engine.client()).build();
        DynamoDbTable<Order> orders = enhanced.table(table.name(), TableSchema.fromBean(Order.class));

        try (LockTable locks = LockTable.forTable(engine.client(), orders)) {
            assertThat(locks.tableName()).isEqualTo(table.name());
            assertThat(locks.partitionKey()).isEqualTo("pk");
            assertThat(locks.sortKey()).contains("sk");
            String name = Contenders.lockName();
            assertThat(locks.tryAcquire(name, LEASE)).isPresent();
            assertThat(contenders.item(name).get("sk").s()).isEqualTo("LOCK");
        }
        try (LockTable withOptions = LockTable.forTable(
                engine.client(), orders, LockTableOptions.builder().holder("h").build())) {
            assertThat(withOptions.options().holder()).contains("h");
        }
    }

    private static ReplicaDescription replica(String region) {
        return ReplicaDescription.builder().regionName(region).build();
    }
}
