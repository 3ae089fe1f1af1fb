package io.locktable.spring.test;

import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Records each request of the starter's client that the engine refuses as unsupported into {@link RefusedRequests},
 * and adds to the exception's message what was refused and the fix, so that the ERROR a scheduler logs says it too.
 * The exception keeps its type, error details and status: the application's code sees what it would see otherwise.
 */
final class RefusedRequestInterceptor implements ExecutionInterceptor {

    private final RefusedRequests refused;

    RefusedRequestInterceptor(RefusedRequests refused) {
        this.refused = refused;
    }

    @Override
    public Throwable modifyException(Context.FailedExecution context, ExecutionAttributes attributes) {
        Throwable exception = context.exception();
        if (!isRefusal(exception)) {
            return exception;
        }
        String operation = operation(attributes);
        AwsServiceException refusal = (AwsServiceException) exception;
        String answer = refusal.awsErrorDetails().errorMessage();
        return refusal.toBuilder()
                .message(refused.refusal(operation) + ". " + RefusedRequests.fix(operation)
                        + (answer != null && !answer.isBlank() ? " [the engine's answer: " + answer + "]" : ""))
                .build();
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (isRefusal(context.exception())) {
            refused.record(operation(attributes));
        }
    }

    private static String operation(ExecutionAttributes attributes) {
        return Objects.requireNonNullElse(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), "a request");
    }

    private static boolean isRefusal(Throwable exception) {
        return exception instanceof AwsServiceException service
                && service.awsErrorDetails() != null
                && RefusedRequests.unsupported(service.awsErrorDetails().errorCode());
    }
}
