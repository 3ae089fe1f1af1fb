package io.locktable.spring.autoconfigure;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Stands for a DAX client ({@code software.amazon.dax.ClusterDaxClient}): only its class name matters. */
final class FakeDaxClient implements DynamoDbClient {

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
