package io.locktable.bench;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Counts the requests of one client, every HTTP attempt, by operation and by lock key, with the time they spent on
 * the wire (request sent to answer read, the engine's work included), and tells an optional observer when each call
 * starts (on the thread that sends it).
 */
final class Counter implements ExecutionInterceptor {

    /** Told of every call as it starts. */
    interface Observer {
        void sent(String operation, String key, long nanos);
    }

    private static final Set<String> READS = Set.of("GetItem", "Query", "Scan", "BatchGetItem");
    private static final ExecutionAttribute<Long> SENT = new ExecutionAttribute<>("bench.sent");

    private final Observer observer;
    private final boolean byKey;
    private final Map<String, LongAdder> byOperation = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> readsByKey = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> writesByKey = new ConcurrentHashMap<>();
    private final LongAdder wireNanos = new LongAdder();

    Counter() {
        this.observer = null;
        this.byKey = true;
    }

    /** Only tells the observer (counts by operation, not by key, so that it keeps nothing per lock). */
    Counter(Observer observer) {
        this.observer = observer;
        this.byKey = false;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (observer != null) {
            observer.sent(operation(attributes), keyOf(context.request()), System.nanoTime());
        }
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        attributes.putAttribute(SENT, System.nanoTime());
        String operation = operation(attributes);
        byOperation.computeIfAbsent(operation, k -> new LongAdder()).increment();
        String key = byKey ? keyOf(context.request()) : null;
        if (key != null) {
            (READS.contains(operation) ? readsByKey : writesByKey)
                    .computeIfAbsent(key, k -> new LongAdder())
                    .increment();
        }
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        Long sent = attributes.getAttribute(SENT);
        if (sent != null) {
            wireNanos.add(System.nanoTime() - sent);
        }
    }

    /** The time all requests since the last reset spent on the wire. */
    long wireNanos() {
        return wireNanos.sum();
    }

    /** Requests by operation since the last reset, such as {@code {GetItem=1, PutItem=1}}. */
    Map<String, Long> byOperation() {
        Map<String, Long> copy = new TreeMap<>();
        byOperation.forEach((operation, count) -> copy.put(operation, count.sum()));
        return copy;
    }

    long total() {
        return byOperation().values().stream().mapToLong(Long::longValue).sum();
    }

    long reads(String key) {
        LongAdder count = readsByKey.get(key);
        return count == null ? 0 : count.sum();
    }

    long writes(String key) {
        LongAdder count = writesByKey.get(key);
        return count == null ? 0 : count.sum();
    }

    void reset() {
        byOperation.clear();
        readsByKey.clear();
        writesByKey.clear();
        wireNanos.reset();
    }

    private static String operation(ExecutionAttributes attributes) {
        String name = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        return name == null ? "unknown" : name;
    }

    private static String keyOf(SdkRequest request) {
        Map<String, AttributeValue> key;
        if (request instanceof GetItemRequest r) {
            key = r.key();
        } else if (request instanceof UpdateItemRequest r) {
            key = r.key();
        } else if (request instanceof DeleteItemRequest r) {
            key = r.key();
        } else if (request instanceof PutItemRequest r) {
            key = r.item();
        } else {
            return null;
        }
        AttributeValue value = key.containsKey(Rig.PEER_KEY) ? key.get(Rig.PEER_KEY) : key.get(Rig.OURS_KEY);
        return value == null ? null : value.s();
    }
}
