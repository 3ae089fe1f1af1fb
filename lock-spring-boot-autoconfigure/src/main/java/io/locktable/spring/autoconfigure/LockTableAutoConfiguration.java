package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import org.springframework.beans.factory.ObjectProvider;
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
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The {@link LockTable} of {@code locktable.*}, closed (its leases released) when the context closes. It uses the
 * {@link DynamoDbClient} marked {@link LockTableDynamoDbClient @LockTableDynamoDbClient}, else the context's single
 * (or primary) client; with several clients and neither, it backs off. A context without any {@code DynamoDbClient}
 * but with a {@link DynamoDbAsyncClient} (marked, single or primary) gets the lock table over that one: the same
 * table, whose blocking calls wait for the asynchronous client's answers (see {@link LockTableClient}). Creating it sends nothing; once every bean is
 * created, before any lifecycle bean starts, it checks the table with {@link LockTable#verify()} (or creates it first
 * with {@code locktable.create-table=true}); a missing or unfit table stops startup. A DAX client is refused. Its events go to every {@link LockTableListener} bean, and every {@link
 * LockTableBuilderCustomizer} bean adjusts it before it is built. Backs off when the context has a {@code
 * LockTable} of its own (or several).
 *
 * <p>In the test mode {@code locktable.test.in-memory} (or {@code locktable.test.lead-everything}), with {@code
 * lock-spring-boot-test} on the class path, the table is {@link LockTable#inMemory in memory} instead: no client, no
 * table and no request, the same options, listeners and customizers.
 */
@AutoConfiguration(after = LockTableDynamoDbClientAutoConfiguration.class)
@ConditionalOnClass(LockTable.class)
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableAutoConfiguration {

    LockTableAutoConfiguration() {}

    /**
     * The lock table in DynamoDB, which production always uses, and its check at startup. Its conditions are on the
     * class, so that the check exists exactly when this table does.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional({InMemoryTestMode.Off.class, LockTableClientCondition.class})
    @ConditionalOnMissingBean(LockTable.class)
    static class DynamoDbLockTableConfiguration {

        @Bean(destroyMethod = "close")
        LockTable lockTable(
                LockTableClient lockTableClient,
                LockTableProperties properties,
                Environment environment,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            InMemoryTestMode.warnIfAsked(environment);
            return LockTableFactory.create(
                    lockTableClient,
                    properties,
                    DefaultHolder.of(environment),
                    LockTableListener.forwardingTo(new ListenerBeans(listeners)),
                    builder -> customizers.orderedStream().forEach(customizer -> customizer.customize(builder)));
        }

        @Bean
        @Lazy(false)
        LockTableStartupCheck lockTableStartupCheck(
                LockTableClient lockTableClient, LockTable lockTable, LockTableProperties properties) {
            return new LockTableStartupCheck(lockTableClient, lockTable, properties);
        }

        /** The client the table is built over, and checked with: see {@link LockTableClient}. */
        @Bean
        LockTableClient lockTableClient(
                @LockTableDynamoDbClient ObjectProvider<DynamoDbClient> lockTableDynamoDbClient,
                @LockTableDynamoDbClient ObjectProvider<DynamoDbAsyncClient> lockTableDynamoDbAsyncClient,
                ObjectProvider<DynamoDbClient> dynamoDbClient,
                ObjectProvider<DynamoDbAsyncClient> dynamoDbAsyncClient) {
            return LockTableClient.choose(
                    lockTableDynamoDbClient, lockTableDynamoDbAsyncClient, dynamoDbClient, dynamoDbAsyncClient);
        }
    }

    /** The lock table of the test mode, in memory: {@link InMemoryTestMode}. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(InMemoryTestMode.On.class)
    static class InMemoryLockTableConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        LockTable lockTable(
                LockTableProperties properties,
                Environment environment,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            LockTable locks = LockTableFactory.inMemory(
                    InMemoryTestMode.tableName(properties.getTableName()),
                    properties,
                    DefaultHolder.of(environment),
                    LockTableListener.forwardingTo(new ListenerBeans(listeners)),
                    builder -> customizers.orderedStream().forEach(customizer -> customizer.customize(builder)));
            InMemoryTestMode.log(environment, locks);
            return locks;
        }
    }

    /**
     * A client for the locks: one marked {@code @LockTableDynamoDbClient}, the context's single {@code
     * DynamoDbClient} candidate, or, without any {@code DynamoDbClient}, its single {@code DynamoDbAsyncClient} one.
     */
    static final class LockTableClientCondition extends AnyNestedCondition {

        LockTableClientCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(annotation = LockTableDynamoDbClient.class)
        static final class Qualified {}

        @ConditionalOnSingleCandidate(DynamoDbClient.class)
        static final class SingleCandidate {}

        /** Only asynchronous clients: the synchronous one is preferred when there is one. */
        @ConditionalOnSingleCandidate(DynamoDbAsyncClient.class)
        @ConditionalOnMissingBean(DynamoDbClient.class)
        static final class SingleAsyncCandidate {}
    }
}
