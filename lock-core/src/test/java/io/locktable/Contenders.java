package io.locktable;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Lock tables for one test, each with a client of its own (as separate processes have), a recorder of its requests
 * and a fault injector. Closes them all at the end.
 */
final class Contenders implements AutoCloseable {

    /** One contender: a lock table over its own client. */
    record Contender(LockTable locks, DynamoDbClient client, RequestRecorder requests, FaultInjector faults) {}

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final List<AutoCloseable> opened = new ArrayList<>();

    Contenders(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
    }

    Contender add() {
        return add(builder -> {});
    }

    Contender add(Consumer<LockTable.Builder> customizer) {
        return add(customizer, o -> {});
    }

    /** A contender whose client has extra settings, such as no retries. */
    Contender add(Consumer<LockTable.Builder> customizer, Consumer<ClientOverrideConfiguration.Builder> overrides) {
        return add(customizer, overrides, engine.endpoint());
    }

    /** A contender that reaches the engine at another endpoint, such as a {@link io.locktable.test.TcpProxy}. */
    Contender addVia(URI endpoint, Consumer<LockTable.Builder> customizer) {
        return add(customizer, o -> {}, endpoint);
    }

    private Contender add(
            Consumer<LockTable.Builder> customizer,
            Consumer<ClientOverrideConfiguration.Builder> overrides,
            URI endpoint) {
        RequestRecorder requests = new RequestRecorder();
        FaultInjector faults = new FaultInjector();
        DynamoDbClient client = engine.clientBuilder()
                .endpointOverride(endpoint)
                .overrideConfiguration(o -> {
                    o.addExecutionInterceptor(requests).addExecutionInterceptor(faults);
                    overrides.accept(o);
                })
                .build();
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        customizer.accept(builder);
        LockTable locks = builder.build();
        opened.add(client);
        opened.add(locks);
        return new Contender(locks, client, requests, faults);
    }

    static String lockName() {
        return "lock-" + UUID.randomUUID();
    }

    Map<String, AttributeValue> key(String name) {
        Map<String, AttributeValue> key = new java.util.HashMap<>();
        key.put(table.partitionKey(), AttributeValue.fromS("LOCK#" + name));
        table.sortKey().ifPresent(sk -> key.put(sk, AttributeValue.fromS("LOCK")));
        return key;
    }

    Map<String, AttributeValue> item(String name) {
        return engine.client()
                .getItem(r -> r.tableName(table.name()).key(key(name)).consistentRead(true))
                .item();
    }

    /** Puts an application's own item at a lock's key, as in a table shared with the application's data. */
    void putForeignItem(String name) {
        Map<String, AttributeValue> foreign = new java.util.HashMap<>(key(name));
        foreign.put("payload", AttributeValue.fromS("an application's own item at the lock's key"));
        engine.client().putItem(r -> r.tableName(table.name()).item(foreign));
    }

    /** Deletes a lock item behind its holder's back, as an operator, a restore or a time to live would. */
    void deleteItem(String name) {
        engine.client().deleteItem(r -> r.tableName(table.name()).key(key(name)));
    }

    /** A lock table over {@code client}, a decorator of a client of the engine, closed with the others. */
    LockTable over(DynamoDbClient client, Consumer<LockTable.Builder> customizer) {
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        customizer.accept(builder);
        LockTable locks = builder.build();
        opened.add(locks);
        return locks;
    }

    /** A new client of the engine, closed with the others. */
    DynamoDbClient client(Consumer<ClientOverrideConfiguration.Builder> overrides) {
        DynamoDbClient client = engine.clientBuilder()
                .endpointOverride(engine.endpoint())
                .overrideConfiguration(overrides)
                .build();
        opened.add(client);
        return client;
    }

    /** Sets the owner of a lock item behind its holder's back, as a foreign writer would. */
    void engineClientUpdateOwner(String name, String owner) {
        engine.client()
                .updateItem(r -> r.tableName(table.name())
                        .key(key(name))
                        .updateExpression("SET #owner = :owner")
                        .expressionAttributeNames(Map.of("#owner", "owner"))
                        .expressionAttributeValues(Map.of(":owner", AttributeValue.fromS(owner))));
    }

    /** Sets a number attribute of a lock item behind its holder's back, as a foreign or buggy writer would. */
    void setAttribute(String name, String attribute, String number) {
        engine.client()
                .updateItem(r -> r.tableName(table.name())
                        .key(key(name))
                        .updateExpression("SET #a = :v")
                        .expressionAttributeNames(Map.of("#a", attribute))
                        .expressionAttributeValues(Map.of(":v", AttributeValue.fromN(number))));
    }

    @Override
    public void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                // a client closed by the test itself
            }
        }
    }
}
