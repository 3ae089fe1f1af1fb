package io.locktable;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ReplicatedWriteConflictException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/** Sorts request errors into those that may pass (retry) and those that will not. */
final class Errors {

    private Errors() {}

    /**
     * Tells whether a write that threw may have been applied all the same. Only a refusal of DynamoDB itself (a 4xx
     * service exception: a failed condition, throttling, validation) proves it was not; anything else may have come
     * after the engine applied it: a lost answer (I/O, a timeout), a 5xx, or an exception of something between the
     * SDK and the caller (a tracing or metrics decorator of the client, an interceptor, an {@link Error}).
     */
    static boolean mayHaveApplied(Throwable error) {
        return !(error instanceof AwsServiceException service
                && service.statusCode() >= 400
                && service.statusCode() < 500);
    }

    /**
     * An error that may pass: throttling, a 5xx, a transaction conflict, or a client-side failure such as I/O, a
     * timeout or credentials that could not be loaded.
     */
    static boolean isTransient(Throwable error) {
        if (error instanceof ResourceNotFoundException) {
            return false;
        }
        if (error instanceof TransactionConflictException || error instanceof ReplicatedWriteConflictException) {
            // the latter: a write from another region of a multi-Region strongly consistent table came first; this
            // write was rejected, not applied, and may be sent again
            return true;
        }
        if (error instanceof DynamoDbException dynamo) {
            return dynamo.isThrottlingException() || dynamo.statusCode() >= 500 || dynamo.retryable();
        }
        if (error instanceof SdkClientException) {
            return true;
        }
        return error instanceof SdkException sdk && sdk.retryable();
    }

    /**
     * An error in one line, for a log: DynamoDB's error code and message, or the type and message with line breaks
     * folded (the SDK's exception of an unreachable endpoint carries a suppressed exception per attempt).
     */
    static String oneLine(Throwable error) {
        if (error instanceof AwsServiceException service && service.awsErrorDetails() != null) {
            String message = service.awsErrorDetails().errorMessage();
            return service.awsErrorDetails().errorCode()
                    + (message == null ? " (HTTP " + service.statusCode() + ")" : ": " + message);
        }
        return error.toString().replaceAll("\\s*\\R\\s*", " ");
    }
}
