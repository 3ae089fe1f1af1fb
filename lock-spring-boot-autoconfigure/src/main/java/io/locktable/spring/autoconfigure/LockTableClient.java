package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;
import software.amazon.awssdk.awscore.AwsServiceClientConfiguration;
import software.amazon.awssdk.core.SdkClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The client the auto-configured lock table is built over: a {@code DynamoDbClient} or a {@code DynamoDbAsyncClient}. */
record LockTableClient(SdkClient client) {

    private static final String DAX_CLIENT = "software.amazon.dax.ClusterDaxClient";

    LockTable.Builder builder(String tableName, String partitionKey) {
        return client instanceof DynamoDbClient sync
                ? LockTable.builder(sync, tableName, partitionKey)
                : LockTable.builder((DynamoDbAsyncClient) client, tableName, partitionKey);
    }

    /** Where the client sends its requests, for a message: {@code " at <endpoint> in region <region>"}, or empty. */
    String endpoint() {
        StringBuilder where = new StringBuilder();
        try {
            if (client.serviceClientConfiguration() instanceof AwsServiceClientConfiguration configuration) {
                configuration
                        .endpointOverride()
                        .ifPresent(uri -> where.append(" at ").append(uri));
                if (configuration.region() != null) {
                    where.append(" in region ").append(configuration.region());
                }
            }
        } catch (RuntimeException e) {
            // a test double's default method throws: describe nothing
        }
        return where.toString();
    }

    /**
     * The client's region when it reaches an endpoint of its own (a local engine, by its override) and the region is
     * none the SDK knows, such as {@code local}: a local engine answers every request there with HTTP 500.
     *
     * @return the region, or null when there is no override or the region is a known one
     */
    @Nullable
    String unknownRegionOfLocalEngine() {
        try {
            if (client.serviceClientConfiguration() instanceof AwsServiceClientConfiguration configuration
                    && configuration.endpointOverride().isPresent()
                    && configuration.region() != null
                    && !Region.regions().contains(configuration.region())) {
                return configuration.region().id();
            }
        } catch (RuntimeException e) {
            // a test double's default method throws: nothing known
        }
        return null;
    }

    /**
     * Refuses a DAX client, told by its type (a proxy looked through): of the DAX SDK's package, or a {@value
     * #DAX_CLIENT}. DAX reads are not strongly consistent.
     */
    void refuseDax() {
        if (isDax(client)) {
            throw new LockTableConfigurationException(
                    "The " + (client instanceof DynamoDbClient ? "DynamoDbClient" : "DynamoDbAsyncClient")
                            + " for the locks is a DAX client ("
                            + AopUtils.getTargetClass(client).getName()
                            + "). DAX serves reads from a cache that is not strongly consistent, and the lock protocol"
                            + " depends on strongly consistent reads: two instances could hold one lock.",
                    "Define a plain DynamoDbClient bean (DynamoDbClient.create()) and mark it with"
                            + " @LockTableDynamoDbClient: the locks use it, and with @Bean(defaultCandidate = false)"
                            + " the rest of the application keeps getting the DAX client. Or define a LockTable bean"
                            + " of your own built on a plain client.");
        }
    }

    static boolean isDax(Object client) {
        Class<?> type = AopUtils.getTargetClass(client);
        ClassLoader loader = type.getClassLoader();
        return type.getName().startsWith("software.amazon.dax.")
                || (ClassUtils.isPresent(DAX_CLIENT, loader)
                        && ClassUtils.resolveClassName(DAX_CLIENT, loader).isAssignableFrom(type));
    }
}
