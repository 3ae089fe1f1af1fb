package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.core.SdkClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The {@link LockTable} of {@code locktable.*}, closed (its leases released) with the context. Its client is, in
 * order: the {@code DynamoDbClient} marked {@link LockTableDynamoDbClient @LockTableDynamoDbClient}, the {@code
 * DynamoDbAsyncClient} so marked, the single (or primary) {@code DynamoDbClient}, and in a context without one the
 * single (or primary) {@code DynamoDbAsyncClient}; otherwise it backs off. A DAX client is refused. Creating it sends
 * nothing: once every bean exists, before anything starts, the table is created with {@code locktable.create-table}
 * and {@linkplain LockTable#verify() verified}. Every {@link LockTableListener} bean hears it, and every {@link
 * LockTableBuilderCustomizer} adjusts it. Backs off when the context has a {@code LockTable}.
 *
 * <p>In the test mode {@code locktable.test.in-memory}, with {@code lock-spring-boot-test} on the class path, the
 * table is {@link LockTable#inMemory in memory}, with the same options, listeners and customizers.
 */
@AutoConfiguration(after = LockTableDynamoDbClientAutoConfiguration.class)
@ConditionalOnClass(LockTable.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LockTableAutoConfiguration.class);

    LockTableAutoConfiguration() {}

    /** Conditions on the class, so that the startup check exists exactly with this table. */
    @Configuration(proxyBeanMethods = false)
    @Conditional({InMemoryTestMode.Off.class, ClientCondition.class})
    @ConditionalOnMissingBean(LockTable.class)
    static class DynamoDbLockTableConfiguration {

        @Bean
        LockTableClient lockTableClient(
                @LockTableDynamoDbClient ObjectProvider<DynamoDbClient> marked,
                @LockTableDynamoDbClient ObjectProvider<DynamoDbAsyncClient> markedAsync,
                ObjectProvider<DynamoDbClient> clients,
                ObjectProvider<DynamoDbAsyncClient> asyncClients) {
            SdkClient client = marked.getIfAvailable();
            if (client == null) {
                client = markedAsync.getIfAvailable();
            }
            if (client == null) {
                client = clients.getIfAvailable();
            }
            return new LockTableClient(client != null ? client : asyncClients.getObject());
        }

        @Bean(destroyMethod = "close")
        LockTable lockTable(
                LockTableClient client,
                LockTableProperties properties,
                Environment environment,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            String testMode = InMemoryTestMode.asked(environment);
            if (testMode != null) {
                log.warn(
                        "{}=true is ignored: it works only in tests, with io.locktable:lock-spring-boot-test on the"
                                + " class path; the locks are in DynamoDB as usual",
                        testMode);
            }
            return LockTableFactory.build(
                    LockTableFactory.dynamoDb(client, properties), properties, environment, listeners, customizers);
        }

        /** Runs once every bean exists, before any lifecycle bean starts; {@code @Lazy(false)} for lazy contexts. */
        @Bean
        @Lazy(false)
        SmartInitializingSingleton lockTableStartupCheck(
                LockTableClient client, LockTable lockTable, LockTableProperties properties) {
            return () -> LockTableFactory.check(client, lockTable, properties.isCreateTable());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(InMemoryTestMode.class)
    static class InMemoryLockTableConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        LockTable lockTable(
                LockTableProperties properties,
                Environment environment,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            LockTable locks = LockTableFactory.build(
                    LockTableFactory.inMemory(InMemoryTestMode.tableName(properties.getTableName())),
                    properties,
                    environment,
                    listeners,
                    customizers);
            log.info(
                    "{}=true: the locks are in memory, in the table '{}' of this JVM (a test mode)",
                    InMemoryTestMode.asked(environment),
                    locks.tableName());
            return locks;
        }
    }

    /** A client for the locks: a marked one, the single {@code DynamoDbClient}, or else the single async one. */
    static final class ClientCondition extends AnyNestedCondition {

        ClientCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(annotation = LockTableDynamoDbClient.class)
        static final class Marked {}

        @ConditionalOnSingleCandidate(DynamoDbClient.class)
        static final class SingleCandidate {}

        @ConditionalOnSingleCandidate(DynamoDbAsyncClient.class)
        @ConditionalOnMissingBean(DynamoDbClient.class)
        static final class SingleAsyncCandidate {}
    }
}
