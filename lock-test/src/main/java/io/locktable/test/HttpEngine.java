package io.locktable.test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/** An engine reached at one endpoint with one region and one set of credentials. */
final class HttpEngine implements DynamoDbEngine {

    private final String name;
    private final URI endpoint;
    private final Region region;
    private final AwsCredentialsProvider credentials;
    private final Set<EngineCapability> capabilities;
    private final String tablePrefix;
    private final DynamoDbClient client;

    HttpEngine(
            String name,
            URI endpoint,
            Region region,
            AwsCredentialsProvider credentials,
            Set<EngineCapability> capabilities,
            String tablePrefix) {
        this.name = name;
        this.endpoint = endpoint;
        this.region = region;
        this.credentials = credentials;
        this.capabilities = Set.copyOf(capabilities);
        this.tablePrefix = tablePrefix;
        this.client = clientBuilder().build();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public Set<EngineCapability> capabilities() {
        return capabilities;
    }

    @Override
    public DynamoDbClient client() {
        return client;
    }

    @Override
    public DynamoDbClientBuilder clientBuilder() {
        DynamoDbClientBuilder builder = DynamoDbClient.builder()
                .region(region)
                .credentialsProvider(credentials)
                .httpClientBuilder(UrlConnectionHttpClient.builder());
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder;
    }

    @Override
    public TestTable createTable(String prefix, String partitionKey, String sortKey) {
        String table = tablePrefix + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        List<KeySchemaElement> keys = new ArrayList<>();
        List<AttributeDefinition> attributes = new ArrayList<>();
        keys.add(KeySchemaElement.builder()
                .attributeName(partitionKey)
                .keyType(KeyType.HASH)
                .build());
        attributes.add(AttributeDefinition.builder()
                .attributeName(partitionKey)
                .attributeType(ScalarAttributeType.S)
                .build());
        boolean hasSortKey = sortKey != null && !sortKey.isEmpty();
        if (hasSortKey) {
            keys.add(KeySchemaElement.builder()
                    .attributeName(sortKey)
                    .keyType(KeyType.RANGE)
                    .build());
            attributes.add(AttributeDefinition.builder()
                    .attributeName(sortKey)
                    .attributeType(ScalarAttributeType.S)
                    .build());
        }
        client.createTable(r -> r.tableName(table)
                .keySchema(keys)
                .attributeDefinitions(attributes)
                .billingMode(BillingMode.PAY_PER_REQUEST));
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
                .client(client)
                .overrideConfiguration(o ->
                        o.maxAttempts(600).backoffStrategy(FixedDelayBackoffStrategy.create(Duration.ofMillis(100))))
                .build()) {
            waiter.waitUntilTableExists(r -> r.tableName(table));
        }
        return new TestTable(
                table, partitionKey, hasSortKey ? java.util.Optional.of(sortKey) : java.util.Optional.empty(), this);
    }

    @Override
    public void deleteTable(String table) {
        try {
            client.deleteTable(r -> r.tableName(table));
        } catch (ResourceNotFoundException e) {
            // already gone
        }
    }

    @Override
    public String toString() {
        return name + " at " + (endpoint == null ? "the default AWS endpoint of " + region : endpoint)
                + ", capabilities " + capabilities;
    }
}
