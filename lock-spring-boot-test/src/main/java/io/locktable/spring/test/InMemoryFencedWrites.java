package io.locktable.spring.test;

import io.locktable.LockTable;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * In the in-memory test mode, refuses before it is sent each {@code TransactWriteItems} of the starter's client that
 * carries the held check of a lease ({@code lease.heldCheck()}) of the context's in-memory lock table, and fails the
 * test with it ({@link UnreportedFailures}). Such a write names a lock item that is only in this JVM's memory: sent to
 * an engine or to DynamoDB it can never apply as it does in production, and the test would pass with an ERROR in the
 * log. Filled on the caller's threads and read on the test's, so its queue is concurrent.
 */
final class InMemoryFencedWrites implements ExecutionInterceptor, UnreportedFailures {

    private static final String LOCK_PREFIX = "LOCK#";

    private final Supplier<List<LockTable>> lockTables;
    private final @Nullable URI endpoint;
    private final Queue<String> unreported = new ConcurrentLinkedQueue<>();

    /**
     * @param lockTables the context's lock tables, looked up at each request (they are built after the client)
     * @param endpoint where the starter's client sends its requests, null for AWS's own endpoint
     */
    InMemoryFencedWrites(Supplier<List<LockTable>> lockTables, @Nullable URI endpoint) {
        this.lockTables = lockTables;
        this.endpoint = endpoint;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (context.request() instanceof TransactWriteItemsRequest request) {
            Optional<String> lock = heldCheckOf(request);
            if (lock.isPresent()) {
                String message = message(lock.get());
                unreported.add(message);
                throw SdkClientException.create(message);
            }
        }
    }

    /** The name of the lock whose held check the request carries, if it names an in-memory table of the context. */
    private Optional<String> heldCheckOf(TransactWriteItemsRequest request) {
        if (!request.hasTransactItems()) {
            return Optional.empty();
        }
        for (LockTable table : lockTables.get()) {
            for (TransactWriteItem item : request.transactItems()) {
                ConditionCheck check = item.conditionCheck();
                if (check != null && table.tableName().equals(check.tableName())) {
                    AttributeValue key = check.hasKey() ? check.key().get(table.partitionKey()) : null;
                    String name = key == null || key.s() == null ? "?" : key.s();
                    return Optional.of(name.startsWith(LOCK_PREFIX) ? name.substring(LOCK_PREFIX.length()) : name);
                }
            }
        }
        return Optional.empty();
    }

    /** What was sent, why it cannot work, and the three ways that do. */
    String message(String lock) {
        return "In the in-memory test mode (" + LockTableTestMode.PROPERTY + "=true), the code under test sent a"
                + " fenced write: a TransactWriteItems with the held check of lock '" + lock + "' (lease.heldCheck())"
                + " through the starter's DynamoDbClient, to " + (endpoint != null ? endpoint : "AWS's endpoint")
                + ". That lock is in this JVM's memory, in no table there, so the write cannot apply as it does in"
                + " production, yet the test would pass (a @Scheduled job only logs an ERROR); it was not sent."
                + " Write it with lease.transactWrite(items), which the in-memory mode serves (it checks the lease"
                + " and keeps nothing of the items); or replace the bean that writes, in the test; or test the write"
                + " on an engine, with LockTableTestProperties.register(registry, EngineCapability.TRANSACTIONS) in a"
                + " @DynamicPropertySource method and without " + LockTableTestMode.PROPERTY;
    }

    @Override
    public Optional<String> takeUnreported() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String message; (message = unreported.poll()) != null; ) {
            counts.merge(message, 1, Integer::sum);
        }
        List<String> lines = new ArrayList<>();
        counts.forEach((message, times) -> lines.add(message + (times > 1 ? " (" + times + " times)" : "")));
        return lines.isEmpty() ? Optional.empty() : Optional.of(String.join("\n", lines));
    }
}
