package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Replaces Spring's "required a bean of type LockTable" when the starter backed off because of several unmarked
 * clients: names them, and says to mark one with {@link LockTableDynamoDbClient @LockTableDynamoDbClient} or {@code
 * @Primary}. Ordered before Spring Boot's analysis of a missing bean.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class MissingLockTableFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException> {

    private static final Set<Class<?>> BUILT_ON_THE_LOCK_TABLE =
            Set.of(LockTable.class, LeaderRunner.class, LockedRuns.class);

    private final @Nullable BeanFactory beanFactory;

    MissingLockTableFailureAnalyzer(@Nullable BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
        // no bean factory when the context failed before it had one
        if (cause instanceof NoUniqueBeanDefinitionException
                || !BUILT_ON_THE_LOCK_TABLE.contains(cause.getBeanType())
                || !(beanFactory instanceof ConfigurableListableBeanFactory factory)
                || factory.getBeanNamesForType(LockTable.class, true, false).length > 0
                || factory.getBeanNamesForAnnotation(LockTableDynamoDbClient.class).length > 0) {
            return null;
        }
        // the asynchronous clients count only in a context without a synchronous one, as for the lock table
        Class<?> type = factory.getBeanNamesForType(DynamoDbClient.class, true, false).length > 0
                ? DynamoDbClient.class
                : DynamoDbAsyncClient.class;
        List<String> clients = new ArrayList<>();
        for (String name : factory.getBeanNamesForType(type, true, false)) {
            BeanDefinition definition =
                    factory.containsBeanDefinition(name) ? factory.getMergedBeanDefinition(name) : null;
            if (definition != null && definition.isPrimary()) {
                return null;
            }
            if (definition == null
                    || (definition.isAutowireCandidate()
                            && (!(definition instanceof AbstractBeanDefinition bean) || bean.isDefaultCandidate()))) {
                clients.add("'" + name + "'");
            }
        }
        if (clients.size() < 2) {
            return null;
        }
        String named =
                String.join(", ", clients.subList(0, clients.size() - 1)) + " and " + clients.get(clients.size() - 1);
        String opening = "No"; // or names the innermost bean of the failure
        for (Throwable failure = rootFailure; failure != null; failure = failure.getCause()) {
            if (failure instanceof BeanCreationException creation && creation.getBeanName() != null) {
                opening = "The bean '" + creation.getBeanName() + "' needs a "
                        + cause.getBeanType().getSimpleName() + ", but no";
            }
        }
        String kind = type.getSimpleName();
        return new FailureAnalysis(
                opening + " LockTable was configured: the context has " + clients.size() + " " + kind + " beans, "
                        + named + ", none of them marked @LockTableDynamoDbClient or @Primary, so the starter cannot"
                        + " tell which one the locks should use.",
                "Mark the " + kind + " the locks should use with @LockTableDynamoDbClient (with @Bean(defaultCandidate"
                        + " = false) the rest of the application keeps getting the other one), or mark one of "
                        + named + " with @Primary; or define a LockTable bean of your own.",
                cause);
    }
}
