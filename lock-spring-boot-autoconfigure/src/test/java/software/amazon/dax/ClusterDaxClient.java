package software.amazon.dax;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A stand-in for the DAX SDK's client (the real one is not on the test class path): the starter tells a DAX client
 * by this type. Do not add the DAX SDK to the tests' dependencies while this class exists.
 */
public class ClusterDaxClient implements DynamoDbClient {

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
