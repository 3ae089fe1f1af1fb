package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Real clients of an endpoint where nothing listens (port 9, discard): building them, and a lock table over them,
 * sends nothing, and a request that is sent fails. For context tests of what happens before any request.
 */
final class UnansweredClients {

    private static final URI NOTHING_LISTENS = URI.create("http://127.0.0.1:9");
    private static final StaticCredentialsProvider TEST_CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));

    private UnansweredClients() {}

    static DynamoDbClient sync() {
        return DynamoDbClient.builder()
                .endpointOverride(NOTHING_LISTENS)
                .region(Region.US_EAST_1)
                .credentialsProvider(TEST_CREDENTIALS)
                .build();
    }

    /** A lock table {@code Locks} (partition key {@code pk}) over {@link #sync()}. */
    static LockTable lockTable() {
        return LockTable.builder(sync(), "Locks", "pk").build();
    }

    static DynamoDbAsyncClient async() {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(NOTHING_LISTENS)
                .region(Region.US_EAST_1)
                .credentialsProvider(TEST_CREDENTIALS)
                .build();
    }
}
