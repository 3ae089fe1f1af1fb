package io.locktable.test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * The faults of a real network for one DynamoDB client, as an SDK {@link ExecutionInterceptor}: fail a request
 * before it reaches the engine, delay it, let the engine apply it and then lose or hold back its answer (the
 * ambiguous write that makes the SDK retry a write that was applied), answer with an engine error such as throttling
 * or a 500, rewrite an answer as another engine would give it, or run an action while a request is on its way. Tests
 * read as scripts of what the network did; LockTable's own suite uses it, and an application's tests can put it on
 * the client their locks use to see what their code does under the same faults.
 *
 * <pre>{@code
 * FaultInjector faults = new FaultInjector();
 * DynamoDbClient client = engine.clientBuilder()
 *         .overrideConfiguration(o -> o.addExecutionInterceptor(faults))
 *         .build();
 * faults.loseReply("UpdateItem", 1);          // the next write applies, and its answer is lost
 * faults.throttle("UpdateItem", 3);           // the three after that are throttled
 * }</pre>
 *
 * <p>Rules apply to SDK <em>attempts</em>, in the order they were added, each for the number of times given; an
 * operation is named as the SDK names it ({@code "UpdateItem"}, {@code "GetItem"}, {@code "TransactWriteItems"}).
 * Thread-safe.
 */
public final class FaultInjector implements ExecutionInterceptor {

    private enum When {
        BEFORE_SEND,
        AFTER_APPLIED
    }

    private record Rule(
            String operation,
            When when,
            Predicate<SdkRequest> matches,
            Duration delay,
            Supplier<RuntimeException> failure,
            AtomicInteger times) {}

    private static final Supplier<RuntimeException> CONNECTION_RESET = () -> SdkClientException.builder()
            .message("injected fault: connection reset")
            .cause(new IOException("injected connection reset"))
            .build();

    private record Action(String operation, Runnable action, AtomicInteger times) {}

    private record Rewrite(String operation, UnaryOperator<SdkResponse> rewrite) {}

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final List<Action> actions = new CopyOnWriteArrayList<>();
    private final List<Rewrite> rewrites = new CopyOnWriteArrayList<>();
    private volatile boolean stripConditionFailureItem;
    private final AtomicInteger injected = new AtomicInteger();

    /**
     * An error as the engine would answer it, for {@link #failWith}: the given builder (of the exception's own
     * type, with its own fields set) gets the HTTP status, the message and the error code of the exception's name.
     */
    public static DynamoDbException engineError(
            DynamoDbException.Builder builder, int status, String code, String message) {
        builder.message(message)
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(message)
                        .build());
        return (DynamoDbException) builder.build(); // every builder of the DynamoDB model builds one
    }

    /** Fails the next {@code times} attempts of an operation before they reach the engine. */
    public FaultInjector failBeforeSend(String operation, int times) {
        rules.add(new Rule(
                operation, When.BEFORE_SEND, r -> true, Duration.ZERO, CONNECTION_RESET, new AtomicInteger(times)));
        return this;
    }

    /** Fails the next {@code times} attempts of an operation that match, before they reach the engine. */
    public FaultInjector failBeforeSendIf(String operation, Predicate<SdkRequest> matches, int times) {
        rules.add(new Rule(
                operation, When.BEFORE_SEND, matches, Duration.ZERO, CONNECTION_RESET, new AtomicInteger(times)));
        return this;
    }

    /** Lets the engine apply the next {@code times} attempts of an operation, then loses their replies. */
    public FaultInjector loseReply(String operation, int times) {
        rules.add(new Rule(
                operation, When.AFTER_APPLIED, r -> true, Duration.ZERO, CONNECTION_RESET, new AtomicInteger(times)));
        return this;
    }

    /** Holds back the reply of the next {@code times} attempts of an operation, after the engine applied them. */
    public FaultInjector delayReply(String operation, Duration delay, int times) {
        rules.add(new Rule(operation, When.AFTER_APPLIED, r -> true, delay, null, new AtomicInteger(times)));
        return this;
    }

    /** Delays the next {@code times} attempts of an operation before they are sent. */
    public FaultInjector delayRequest(String operation, Duration delay, int times) {
        rules.add(new Rule(operation, When.BEFORE_SEND, r -> true, delay, null, new AtomicInteger(times)));
        return this;
    }

    /** Answers the next {@code times} attempts of an operation with an error, in place of the engine. */
    public FaultInjector failWith(String operation, Supplier<RuntimeException> error, int times) {
        rules.add(new Rule(operation, When.BEFORE_SEND, r -> true, Duration.ZERO, error, new AtomicInteger(times)));
        return this;
    }

    /**
     * Throttles the next {@code times} attempts of an operation, as DynamoDB answers when a partition or the
     * account is over its capacity (HTTP 400, {@code ThrottlingException}).
     *
     * @param operation the SDK's name of the operation
     * @param times how many attempts
     * @return this
     */
    public FaultInjector throttle(String operation, int times) {
        return failWith(
                operation,
                () -> engineError(DynamoDbException.builder(), 400, "ThrottlingException", "Rate of requests exceeds"),
                times);
    }

    /**
     * Answers the next {@code times} attempts of an operation with HTTP 500, as an engine that failed after it
     * received the request (the write may or may not have been applied).
     *
     * @param operation the SDK's name of the operation
     * @param times how many attempts
     * @return this
     */
    public FaultInjector internalError(String operation, int times) {
        return failWith(
                operation,
                () -> engineError(DynamoDbException.builder(), 500, "InternalServerError", "injected fault"),
                times);
    }

    /** Fails every attempt of an operation before it is sent, until {@link #clear()}. */
    public FaultInjector blackhole(String operation) {
        return failBeforeSend(operation, Integer.MAX_VALUE);
    }

    /**
     * Runs an action on the request's thread just before the next {@code times} attempts of an operation are sent,
     * as if what the action does happened while the request was on its way.
     */
    public FaultInjector beforeSend(String operation, Runnable action, int times) {
        AtomicInteger left = new AtomicInteger(times);
        actions.add(new Action(operation, action, left));
        return this;
    }

    /**
     * Takes the item out of every {@code ConditionalCheckFailedException}, as engines that do not honour {@code
     * ReturnValuesOnConditionCheckFailure} answer, so a test runs the read that follows on every engine.
     */
    public FaultInjector withoutItemOnConditionFailure() {
        stripConditionFailureItem = true;
        return this;
    }

    /** Rewrites every answer of an operation before the caller sees it, as another engine would answer. */
    public FaultInjector rewriteResponse(String operation, UnaryOperator<SdkResponse> rewrite) {
        rewrites.add(new Rewrite(operation, rewrite));
        return this;
    }

    /** Removes every rule, action and rewrite: the network behaves again. */
    public void clear() {
        rules.clear();
        actions.clear();
        rewrites.clear();
    }

    /**
     * How many faults were injected so far.
     *
     * @return the count
     */
    public int injected() {
        return injected.get();
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        for (Action action : actions) {
            if (action.operation().equals(operation) && action.times().getAndDecrement() > 0) {
                action.action().run();
            }
        }
        apply(When.BEFORE_SEND, context.request(), attributes);
    }

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        SdkResponse response = context.response();
        for (Rewrite rewrite : rewrites) {
            if (rewrite.operation().equals(operation)) {
                response = rewrite.rewrite().apply(response);
            }
        }
        return response;
    }

    @Override
    public Throwable modifyException(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (stripConditionFailureItem && context.exception() instanceof ConditionalCheckFailedException failed) {
            return failed.toBuilder().item(null).build();
        }
        return context.exception();
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        apply(When.AFTER_APPLIED, context.request(), attributes);
    }

    private void apply(When when, SdkRequest request, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        for (Rule rule : rules) {
            if (rule.when() != when
                    || !rule.operation().equals(operation)
                    || !rule.matches().test(request)) {
                continue;
            }
            if (rule.times().getAndDecrement() <= 0) {
                continue;
            }
            injected.incrementAndGet();
            if (!rule.delay().isZero()) {
                sleep(rule.delay());
            }
            if (rule.failure() != null) {
                throw rule.failure().get();
            }
            return;
        }
    }

    private static void sleep(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
