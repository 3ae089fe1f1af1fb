package io.locktable;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * A decorator of a real client, as tracing and metrics libraries wrap one: every request goes to the engine, and a
 * test makes the decorator throw what such a wrapper can throw, before the request ({@link #throwBefore}) or after
 * the engine applied it ({@link #throwAfter}), where no SDK interceptor could.
 */
final class DecoratedClient implements DynamoDbClient {

    private final DynamoDbClient engine;
    private final Map<String, Queue<Supplier<? extends Throwable>>> before = new ConcurrentHashMap<>();
    private final Map<String, Queue<Supplier<? extends Throwable>>> after = new ConcurrentHashMap<>();

    DecoratedClient(DynamoDbClient engine) {
        this.engine = engine;
    }

    /** The next {@code times} requests of {@code operation} throw, unsent. */
    DecoratedClient throwBefore(String operation, Supplier<? extends Throwable> error, int times) {
        add(before, operation, error, times);
        return this;
    }

    /** The next {@code times} requests of {@code operation} are sent and answered, then throw. */
    DecoratedClient throwAfter(String operation, Supplier<? extends Throwable> error, int times) {
        add(after, operation, error, times);
        return this;
    }

    private static void add(
            Map<String, Queue<Supplier<? extends Throwable>>> rules,
            String operation,
            Supplier<? extends Throwable> error,
            int times) {
        Queue<Supplier<? extends Throwable>> queue =
                rules.computeIfAbsent(operation, key -> new ConcurrentLinkedQueue<>());
        for (int i = 0; i < times; i++) {
            queue.add(error);
        }
    }

    private <T> T call(String operation, Supplier<T> request) {
        throwIfScripted(before, operation);
        T answer = request.get();
        throwIfScripted(after, operation);
        return answer;
    }

    private static void throwIfScripted(Map<String, Queue<Supplier<? extends Throwable>>> rules, String operation) {
        Queue<Supplier<? extends Throwable>> queue = rules.get(operation);
        Supplier<? extends Throwable> next = queue == null ? null : queue.poll();
        if (next == null) {
            return;
        }
        Throwable error = next.get();
        if (error instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        throw new IllegalStateException(error);
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
        return call("GetItem", () -> engine.getItem(request));
    }

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
        return call("UpdateItem", () -> engine.updateItem(request));
    }

    @Override
    public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
        return call("TransactWriteItems", () -> engine.transactWriteItems(request));
    }

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
        return call("DescribeTable", () -> engine.describeTable(request));
    }

    @Override
    public String serviceName() {
        return engine.serviceName();
    }

    @Override
    public void close() {
        engine.close();
    }
}
