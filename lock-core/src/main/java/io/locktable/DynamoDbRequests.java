package io.locktable;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;

/**
 * The DynamoDB operations {@link DynamoDbLockStore} and {@link DynamoDbTableAdmin} send, over either SDK client, so
 * that the requests are built and the answers read in one place whichever client the user has. Each call blocks until
 * the answer, as the synchronous client does, and fails with the SDK's exception (after the client's retries), so
 * {@link LockStore#mayHaveApplied} and {@link LockStore#isTransient} read a failure the same over both clients. A call
 * on an interrupted thread, or interrupted while it waits, throws the SDK's {@link AbortedException} with the thread's
 * interrupt flag set, as the synchronous client does; the {@code evenIfInterrupted} variant is for the release and
 * the give-back, which must go out and be answered even then.
 */
sealed interface DynamoDbRequests {

    static DynamoDbRequests over(DynamoDbClient client) {
        return new Blocking(client);
    }

    static DynamoDbRequests over(DynamoDbAsyncClient client) {
        return new Async(client);
    }

    UpdateItemResponse updateItem(UpdateItemRequest request);

    /**
     * An update that is sent and waited for even on an interrupted thread (the interrupt is kept for the caller): a
     * release, or the give-back of an acquire, is how a holder frees a lock at once.
     */
    UpdateItemResponse updateItemEvenIfInterrupted(UpdateItemRequest request);

    GetItemResponse getItem(GetItemRequest request);

    TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request);

    DescribeTableResponse describeTable(DescribeTableRequest request);

    CreateTableResponse createTable(CreateTableRequest request);

    /** Waits, with the SDK's waiter, until the table exists and is active. */
    void waitUntilTableExists(String tableName);

    UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request);

    DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request);

    /** Over the synchronous client: its calls block already. */
    record Blocking(DynamoDbClient client) implements DynamoDbRequests {

        @Override
        public UpdateItemResponse updateItem(UpdateItemRequest request) {
            return client.updateItem(request);
        }

        /** The synchronous SDK aborts at once on an interrupted thread: the flag is cleared for the request. */
        @Override
        public UpdateItemResponse updateItemEvenIfInterrupted(UpdateItemRequest request) {
            boolean interrupted = Thread.interrupted();
            try {
                return client.updateItem(request);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public GetItemResponse getItem(GetItemRequest request) {
            return client.getItem(request);
        }

        @Override
        public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
            return client.transactWriteItems(request);
        }

        @Override
        public DescribeTableResponse describeTable(DescribeTableRequest request) {
            return client.describeTable(request);
        }

        @Override
        public CreateTableResponse createTable(CreateTableRequest request) {
            return client.createTable(request);
        }

        @Override
        public void waitUntilTableExists(String tableName) {
            client.waiter().waitUntilTableExists(r -> r.tableName(tableName));
        }

        @Override
        public UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
            return client.updateTimeToLive(request);
        }

        @Override
        public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
            return client.describeTimeToLive(request);
        }
    }

    /**
     * Over the asynchronous client: the calling thread waits for the future. An interrupt while it waits cancels the
     * future, which aborts the request in flight; a request that is sent even on an interrupted thread is waited for
     * to its end (its {@code apiCallTimeout} bounds it).
     */
    record Async(DynamoDbAsyncClient client) implements DynamoDbRequests {

        @Override
        public UpdateItemResponse updateItem(UpdateItemRequest request) {
            return send(client::updateItem, request);
        }

        /**
         * The flag is cleared for the request, as over the synchronous client: preparing the request on this thread
         * (resolving credentials, for one) may wait, and such a wait would end at once.
         */
        @Override
        public UpdateItemResponse updateItemEvenIfInterrupted(UpdateItemRequest request) {
            boolean interrupted = Thread.interrupted();
            try {
                CompletableFuture<UpdateItemResponse> answer = client.updateItem(request);
                while (true) {
                    try {
                        return answer.get();
                    } catch (InterruptedException e) {
                        interrupted = true; // kept for the caller; the request goes on
                    } catch (ExecutionException | CancellationException e) {
                        throw unwrapped(e);
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public GetItemResponse getItem(GetItemRequest request) {
            return send(client::getItem, request);
        }

        @Override
        public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
            return send(client::transactWriteItems, request);
        }

        @Override
        public DescribeTableResponse describeTable(DescribeTableRequest request) {
            return send(client::describeTable, request);
        }

        @Override
        public CreateTableResponse createTable(CreateTableRequest request) {
            return send(client::createTable, request);
        }

        @Override
        public void waitUntilTableExists(String tableName) {
            send(name -> client.waiter().waitUntilTableExists(r -> r.tableName(name)), tableName);
        }

        @Override
        public UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
            return send(client::updateTimeToLive, request);
        }

        @Override
        public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
            return send(client::describeTimeToLive, request);
        }

        /**
         * Sends and waits. A thread interrupted before the request is not sent at all, as with the synchronous
         * client; one interrupted while it waits cancels the request in flight, which may have been applied all the
         * same (the caller reads an {@link AbortedException} as such: {@link LockStore#mayHaveApplied}).
         */
        private static <Q, R> R send(Function<Q, CompletableFuture<R>> operation, Q request) {
            if (Thread.interrupted()) {
                throw aborted(new InterruptedException("interrupted before the request was sent"));
            }
            CompletableFuture<R> answer = operation.apply(request);
            try {
                return answer.get();
            } catch (InterruptedException e) {
                answer.cancel(true);
                throw aborted(e);
            } catch (ExecutionException | CancellationException e) {
                throw unwrapped(e);
            }
        }

        /** Sets the interrupt flag again, as the synchronous client leaves it. */
        private static AbortedException aborted(InterruptedException cause) {
            Thread.currentThread().interrupt();
            return AbortedException.builder()
                    .message("Thread was interrupted")
                    .cause(cause)
                    .build();
        }

        /**
         * The SDK's exception from a failed future, as the synchronous client would have thrown it; the caller's
         * stack is added as a suppressed exception, since the SDK's names only the threads of the HTTP client.
         */
        private static RuntimeException unwrapped(Exception failure) {
            Throwable cause = failure;
            while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                    && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof CancellationException cancelled) {
                return AbortedException.builder()
                        .message("The request was cancelled")
                        .cause(cancelled)
                        .build();
            }
            if (cause instanceof Error error) {
                throw error;
            }
            RuntimeException thrown = cause instanceof RuntimeException runtime
                    ? runtime
                    : SdkClientException.builder()
                            .message(cause.toString())
                            .cause(cause)
                            .build();
            if (!(thrown instanceof ConditionalCheckFailedException)) {
                // a failed condition is an answer the store reads, often (a busy lock): no stack to capture for it
                thrown.addSuppressed(new CallerStack());
            }
            return thrown;
        }
    }

    /** Where the caller waited for an answer that failed on a thread of the HTTP client. */
    final class CallerStack extends Exception {
        private static final long serialVersionUID = 1L;

        CallerStack() {
            super("waited for the asynchronous client's answer here");
        }
    }
}
