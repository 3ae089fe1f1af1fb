package io.locktable.test;

import java.net.URI;
import java.util.Set;
import java.util.function.Consumer;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/** A DynamoDB-compatible engine reached over HTTP: dynalite, moto, a container, or an endpoint such as real AWS. */
public interface DynamoDbEngine {

    /**
     * The engine's name, as selected with {@code locktable.test.engine}.
     *
     * @return {@code dynalite}, {@code moto}, {@code container} or {@code endpoint}
     */
    String name();

    /**
     * Where the engine answers.
     *
     * @return the endpoint URL
     */
    URI endpoint();

    /**
     * Tells whether the engine answers on this machine's loopback interface, where any credentials do; a test that
     * gives a client dummy credentials does so only then, so that a run against real DynamoDB uses the default
     * chain's.
     *
     * @return true for a loopback endpoint
     */
    default boolean isLocal() {
        return DynamoDbEngines.isLoopback(endpoint());
    }

    /**
     * What the engine can do beyond the basics.
     *
     * @return its capabilities
     */
    Set<EngineCapability> capabilities();

    /**
     * Tells whether the engine has a capability.
     *
     * @param capability the capability
     * @return true if it has it
     */
    default boolean supports(EngineCapability capability) {
        return capabilities().contains(capability);
    }

    /**
     * A client shared by all tests of this JVM; do not close it.
     *
     * @return the shared client
     */
    DynamoDbClient client();

    /**
     * A client builder set up for the engine: endpoint, region, credentials and HTTP client.
     *
     * @return a new builder
     */
    DynamoDbClientBuilder clientBuilder();

    /**
     * A new client of its own, for example with an {@code ExecutionInterceptor}; the caller closes it.
     *
     * @param overrides changes to the client's override configuration
     * @return a new client
     */
    default DynamoDbClient newClient(Consumer<ClientOverrideConfiguration.Builder> overrides) {
        return clientBuilder().overrideConfiguration(overrides).build();
    }

    /**
     * An asynchronous client shared by all tests of this JVM, made on first use; do not close it.
     *
     * @return the shared asynchronous client
     */
    DynamoDbAsyncClient asyncClient();

    /**
     * An asynchronous client builder set up for the engine: endpoint, region and credentials. Its HTTP client is the
     * asynchronous one on the test class path, as the SDK finds it ({@code software.amazon.awssdk:netty-nio-client}
     * for LockTable's own tests); set one with {@code httpClientBuilder} when the class path has several.
     *
     * <pre>{@code
     * DynamoDbAsyncClient client = engine.asyncClientBuilder().build();
     * }</pre>
     *
     * @return a new builder
     */
    DynamoDbAsyncClientBuilder asyncClientBuilder();

    /**
     * A new asynchronous client of its own, for example with an {@code ExecutionInterceptor}; the caller closes it.
     *
     * @param overrides changes to the client's override configuration
     * @return a new client
     */
    default DynamoDbAsyncClient newAsyncClient(Consumer<ClientOverrideConfiguration.Builder> overrides) {
        return asyncClientBuilder().overrideConfiguration(overrides).build();
    }

    /**
     * A fresh table name in this run's namespace (on a lasting engine, the run's prefix {@code
     * locktable-test-<random>-}), for a test that has its code under test create the table; a table of that name
     * still there when the run ends is deleted with the others.
     *
     * <pre>{@code
     * String missing = engine.uniqueTableName("missing");
     * }</pre>
     *
     * @param prefix the start of the name after the run's prefix
     * @return a name no table has yet
     */
    String uniqueTableName(String prefix);

    /**
     * Creates a table with string keys, billed per request, with a unique name, and waits until it is active.
     *
     * @param prefix the start of the table name
     * @param partitionKey the partition key attribute
     * @param sortKey the sort key attribute, or null for none
     * @return the table
     */
    TestTable createTable(String prefix, String partitionKey, String sortKey);

    /**
     * Deletes a table; a table that does not exist is ignored.
     *
     * @param name the table name
     */
    void deleteTable(String name);
}
