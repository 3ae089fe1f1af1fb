package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import software.amazon.awssdk.awscore.AwsServiceClientConfiguration;
import software.amazon.awssdk.core.SdkClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB client the auto-configured lock table is built over: the synchronous one, or the asynchronous one
 * for a context that has only that kind (Spring Cloud AWS offers both; some applications only the asynchronous
 * one). The lock table is the same over either.
 *
 * <p>Chosen, in order: a {@code DynamoDbClient} marked {@link LockTableDynamoDbClient @LockTableDynamoDbClient}, a
 * {@code DynamoDbAsyncClient} so marked, the context's single (or primary) {@code DynamoDbClient}, and, when the
 * context has no {@code DynamoDbClient} at all, its single (or primary) {@code DynamoDbAsyncClient}: the synchronous
 * client stays preferred when both exist.
 */
final class LockTableClient {

    private final @Nullable DynamoDbClient sync;
    private final @Nullable DynamoDbAsyncClient async;

    private LockTableClient(@Nullable DynamoDbClient sync, @Nullable DynamoDbAsyncClient async) {
        this.sync = sync;
        this.async = async;
    }

    static LockTableClient of(DynamoDbClient client) {
        return new LockTableClient(client, null);
    }

    static LockTableClient of(DynamoDbAsyncClient client) {
        return new LockTableClient(null, client);
    }

    /**
     * The client of the context for the locks, in the order of this class's description; the auto-configuration's
     * condition made sure there is one.
     */
    static LockTableClient choose(
            ObjectProvider<DynamoDbClient> markedClient,
            ObjectProvider<DynamoDbAsyncClient> markedAsyncClient,
            ObjectProvider<DynamoDbClient> clients,
            ObjectProvider<DynamoDbAsyncClient> asyncClients) {
        DynamoDbClient marked = markedClient.getIfAvailable();
        if (marked != null) {
            return of(marked);
        }
        DynamoDbAsyncClient markedAsync = markedAsyncClient.getIfAvailable();
        if (markedAsync != null) {
            return of(markedAsync);
        }
        DynamoDbClient client = clients.getIfAvailable();
        return client != null ? of(client) : of(asyncClients.getObject());
    }

    /** Whether it is the asynchronous client. */
    boolean isAsync() {
        return async != null;
    }

    /** The client's type as a message names it: {@code DynamoDbClient} or {@code DynamoDbAsyncClient}. */
    String typeName() {
        return isAsync() ? "DynamoDbAsyncClient" : "DynamoDbClient";
    }

    /** The client itself, for its class and its configuration. */
    SdkClient client() {
        return sync != null ? sync : Objects.requireNonNull(async);
    }

    /** The target class of the client, a Spring AOP proxy looked through. */
    Class<?> targetClass() {
        return AopUtils.getTargetClass(client());
    }

    /** A builder of a lock table over this client. */
    LockTable.Builder builder(String tableName, String partitionKey) {
        return sync != null
                ? LockTable.builder(sync, tableName, partitionKey)
                : LockTable.builder(Objects.requireNonNull(async), tableName, partitionKey);
    }

    /** Where the client sends its requests, for a message: {@code " at <endpoint> in region <region>"}, or empty. */
    String endpoint() {
        StringBuilder where = new StringBuilder();
        try {
            if (client().serviceClientConfiguration() instanceof AwsServiceClientConfiguration configuration) {
                configuration
                        .endpointOverride()
                        .ifPresent(uri -> where.append(" at ").append(uri));
                if (configuration.region() != null) {
                    where.append(" in region ").append(configuration.region());
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // a client that does not tell: describe nothing
        }
        return where.toString();
    }

    @Override
    public String toString() {
        return typeName() + "[" + targetClass().getName() + "]";
    }
}
