package software.amazon.dax;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * A stand-in for the DAX SDK's asynchronous client (the real one is not on the test class path): the starter tells a
 * DAX client by its package. Do not add the DAX SDK to the tests' dependencies while this class exists.
 */
public class ClusterDaxAsyncClient implements DynamoDbAsyncClient {

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
