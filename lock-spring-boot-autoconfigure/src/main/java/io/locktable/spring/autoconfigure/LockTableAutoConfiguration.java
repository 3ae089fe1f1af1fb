package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.LockTableListener;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The {@link LockTable} of {@code locktable.*}, over the context's {@link DynamoDbClient}, closed (its leases
 * released) when the context closes. At startup it checks the table with {@link LockTable#verify()} (or creates
 * it first with {@code locktable.create-table=true}); a missing or unfit table stops startup. A DAX client is
 * refused. Its events go to every {@link LockTableListener} bean. Backs off when the context has a {@code
 * LockTable} of its own.
 */
@AutoConfiguration(after = LockTableDynamoDbClientAutoConfiguration.class)
@ConditionalOnClass(LockTable.class)
@EnableConfigurationProperties(LockTableProperties.class)
public final class LockTableAutoConfiguration {

    LockTableAutoConfiguration() {}

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockTable lockTable(
            DynamoDbClient dynamoDbClient,
            LockTableProperties properties,
            Environment environment,
            ObjectProvider<LockTableListener> listeners) {
        return LockTables.create(
                dynamoDbClient,
                properties,
                DefaultHolder.of(environment),
                LockTableListener.forwardingTo(new ListenerBeans(listeners)));
    }
}
