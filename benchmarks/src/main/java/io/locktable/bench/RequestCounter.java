package io.locktable.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Counts the DynamoDB requests of one client: every HTTP attempt, by operation and optionally by lock key, and the
 * calls that failed a condition. It also remembers, per thread, when that thread last started a call, so a listener
 * called back on the same thread knows when the request it reports on was sent.
 */
public final class RequestCounter implements ExecutionInterceptor {

    /** Told of every call as it starts. */
    @FunctionalInterface
    public interface SendObserver {
        /**
         * A call starts.
         *
         * @param operation the operation, such as {@code UpdateItem}
         * @param key the value of the item's partition key, or null
         * @param nanos {@code System.nanoTime()} at the start
         */
        void sent(String operation, String key, long nanos);
    }

    private static final ThreadLocal<long[]> LAST_SEND = ThreadLocal.withInitial(() -> new long[1]);

    private final boolean perKey;
    private final SendObserver observer;
    private final Map<String, LongAdder> byOperation = new ConcurrentHashMap<>();
    private final Map<String, Map<String, LongAdder>> byKey = new ConcurrentHashMap<>();
    private final LongAdder conditionFailures = new LongAdder();

    private RequestCounter(boolean perKey, SendObserver observer) {
        this.perKey = perKey;
        this.observer = observer;
    }

    /**
     * A counter by operation only.
     *
     * @return the counter
     */
    public static RequestCounter create() {
        return new RequestCounter(false, null);
    }

    /**
     * A counter by operation and by lock key.
     *
     * @return the counter
     */
    public static RequestCounter perKey() {
        return new RequestCounter(true, null);
    }

    /**
     * A counter by operation that also tells an observer of every call.
     *
     * @param observer the observer
     * @return the counter
     */
    public static RequestCounter observed(SendObserver observer) {
        return new RequestCounter(false, observer);
    }

    /**
     * When the current thread last started a call through any counted client.
     *
     * @return {@code System.nanoTime()} then, or 0 if never
     */
    public static long lastSendOnThisThread() {
        return LAST_SEND.get()[0];
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        long now = System.nanoTime();
        LAST_SEND.get()[0] = now;
        if (observer != null) {
            observer.sent(operation(attributes), keyOf(context.request()), now);
        }
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = operation(attributes);
        byOperation.computeIfAbsent(operation, k -> new LongAdder()).increment();
        if (perKey) {
            String key = keyOf(context.request());
            if (key != null) {
                byKey.computeIfAbsent(key, k -> new ConcurrentHashMap<>())
                        .computeIfAbsent(operation, k -> new LongAdder())
                        .increment();
            }
        }
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (context.exception() instanceof ConditionalCheckFailedException) {
            conditionFailures.increment();
        }
    }

    /**
     * The counts since the last reset.
     *
     * @return a snapshot of the requests by operation
     */
    public Counts snapshot() {
        return new Counts(copy(byOperation));
    }

    /**
     * The counts of one lock key since the last reset (only for {@link #perKey()} counters).
     *
     * @param key the partition key value
     * @return its requests by operation
     */
    public Counts snapshot(String key) {
        return new Counts(copy(byKey.getOrDefault(key, Map.of())));
    }

    /**
     * Calls that failed a condition since the last reset.
     *
     * @return the number
     */
    public long conditionFailures() {
        return conditionFailures.sum();
    }

    /** Starts counting from zero. */
    public void reset() {
        byOperation.clear();
        byKey.clear();
        conditionFailures.reset();
    }

    private static Map<String, Long> copy(Map<String, LongAdder> counts) {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((operation, count) -> copy.put(operation, count.sum()));
        return copy;
    }

    private static String operation(ExecutionAttributes attributes) {
        String name = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        return name == null ? "unknown" : name;
    }

    private static String keyOf(SdkRequest request) {
        Map<String, AttributeValue> key = null;
        if (request instanceof GetItemRequest r) {
            key = r.key();
        } else if (request instanceof UpdateItemRequest r) {
            key = r.key();
        } else if (request instanceof DeleteItemRequest r) {
            key = r.key();
        } else if (request instanceof PutItemRequest r) {
            key = r.item();
        }
        if (key == null) {
            return null;
        }
        AttributeValue pk = key.containsKey(Tables.PEER_KEY) ? key.get(Tables.PEER_KEY) : key.get(Tables.OURS_KEY);
        return pk == null ? null : pk.s();
    }
}
