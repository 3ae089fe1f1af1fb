package io.locktable.test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/**
 * An engine reached at one endpoint with one region and one set of credentials. Its capabilities are probed on
 * first use ({@link EngineProbe}); where they were declared ({@code locktable.test.capabilities}), the declaration
 * is used, and a declared capability the engine lacks is refused with what the engine answered. It remembers the
 * tables it created so that {@link #deleteLeftoverTables()} can remove those a run left behind.
 */
final class HttpEngine implements DynamoDbEngine {

    private final String name;
    private final URI endpoint;
    private final Region region;
    private final AwsCredentialsProvider credentials;
    private final Optional<Set<EngineCapability>> declared;
    private final String tablePrefix;
    private final DynamoDbClient client;
    private @Nullable DynamoDbAsyncClient asyncClient;
    private final Set<String> created = ConcurrentHashMap.newKeySet();
    private @Nullable Set<EngineCapability> capabilities;
    private String capabilityReport;

    HttpEngine(
            String name,
            URI endpoint,
            Region region,
            AwsCredentialsProvider credentials,
            Optional<Set<EngineCapability>> declared,
            String tablePrefix) {
        this.name = name;
        this.endpoint = endpoint;
        this.region = region;
        this.credentials = credentials;
        this.declared = declared.map(Set::copyOf);
        this.tablePrefix = tablePrefix;
        this.client = clientBuilder().build();
    }

    /**
     * An engine on this machine's loopback interface: region us-east-1, dummy credentials, tables without a prefix.
     */
    static HttpEngine local(String name, URI endpoint, Optional<Set<EngineCapability>> declared) {
        return new HttpEngine(name, endpoint, Region.US_EAST_1, DynamoDbEngines.LOCAL_CREDENTIALS, declared, "");
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
    public synchronized Set<EngineCapability> capabilities() {
        if (capabilities == null) {
            EngineProbe.Findings findings = EngineProbe.probe(this);
            Set<EngineCapability> chosen = EnumSet.noneOf(EngineCapability.class);
            chosen.addAll(declared.orElse(findings.present()));
            for (EngineCapability capability : chosen) {
                if (findings.missing().containsKey(capability)) {
                    throw new IllegalStateException("locktable.test.capabilities names " + capability + ", but "
                            + name + " at " + endpoint + " does not have it: "
                            + findings.missing().get(capability));
                }
            }
            capabilities = Collections.unmodifiableSet(chosen);
            capabilityReport = report(chosen, findings);
        }
        return capabilities;
    }

    private String report(Set<EngineCapability> chosen, EngineProbe.Findings findings) {
        StringBuilder report = new StringBuilder(declared.isPresent() ? "declared " : "probed ").append(chosen);
        findings.missing().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(missing -> report.append("; no ")
                        .append(missing.getKey())
                        .append(": ")
                        .append(missing.getValue()));
        findings.present().stream()
                .filter(capability -> !chosen.contains(capability))
                .sorted()
                .forEach(unused -> report.append("; ").append(unused).append(" present but not declared, so unused"));
        return report.toString();
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
    public synchronized DynamoDbAsyncClient asyncClient() {
        if (asyncClient == null) {
            asyncClient = asyncClientBuilder().build();
        }
        return asyncClient;
    }

    @Override
    public DynamoDbAsyncClientBuilder asyncClientBuilder() {
        DynamoDbAsyncClientBuilder builder =
                DynamoDbAsyncClient.builder().region(region).credentialsProvider(credentials);
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder;
    }

    @Override
    public String uniqueTableName(String prefix) {
        return tablePrefix + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public TestTable createTable(String prefix, String partitionKey, @Nullable String sortKey) {
        String table = uniqueTableName(prefix);
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
        created.add(table);
        client.createTable(r -> r.tableName(table)
                .keySchema(keys)
                .attributeDefinitions(attributes)
                .billingMode(BillingMode.PAY_PER_REQUEST));
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
                .client(client)
                .overrideConfiguration(o -> o.maxAttempts(600)
                        .backoffStrategyV2(BackoffStrategy.fixedDelayWithoutJitter(Duration.ofMillis(100))))
                .build()) {
            waiter.waitUntilTableExists(r -> r.tableName(table));
        }
        return new TestTable(table, partitionKey, hasSortKey ? Optional.of(sortKey) : Optional.empty(), this);
    }

    @Override
    public void deleteTable(String table) {
        try {
            client.deleteTable(r -> r.tableName(table));
        } catch (ResourceNotFoundException e) {
            // already gone
        }
        created.remove(table);
    }

    /**
     * Deletes the tables this engine created that are still there, and those the run named with {@link
     * #uniqueTableName(String)} that something else created; for the end of a run against a lasting engine.
     *
     * @return the names of the tables deleted
     */
    List<String> deleteLeftoverTables() {
        List<String> deleted = new ArrayList<>();
        Set<String> candidates = new TreeSet<>(created);
        if (!tablePrefix.isEmpty()) {
            client.listTablesPaginator().tableNames().stream()
                    .filter(table -> table.startsWith(tablePrefix))
                    .forEach(candidates::add);
        }
        for (String table : candidates) {
            try {
                client.deleteTable(r -> r.tableName(table));
                deleted.add(table);
            } catch (ResourceNotFoundException e) {
                // already gone
            }
            created.remove(table);
        }
        return deleted;
    }

    @Override
    public String toString() {
        capabilities();
        return name + " at " + endpoint + " in " + region + ", capabilities " + capabilityReport;
    }
}
