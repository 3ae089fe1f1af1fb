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
import org.springframework.beans.factory.ListableBeanFactory;
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
 * Describes a startup that failed for want of a {@link LockTable} (or of the runner or the runs built on it) because
 * the context has several {@link DynamoDbClient} beans (or, without any, several {@link DynamoDbAsyncClient} beans) and
 * none is marked for the locks: the starter then backs off,
 * and Spring alone would only say that a bean of type {@code LockTable} is missing. The description names the
 * clients; the action says to mark one with {@link LockTableDynamoDbClient @LockTableDynamoDbClient} or {@code
 * @Primary}. Ordered before Spring Boot's own analysis of a missing bean, which it replaces only in that case.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class MissingLockTableFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException> {

    /** The starter's beans that are absent when it configures no lock table. */
    private static final Set<Class<?>> BUILT_ON_THE_LOCK_TABLE =
            Set.of(LockTable.class, LeaderRunner.class, LockedRuns.class);

    private final BeanFactory beanFactory;

    MissingLockTableFailureAnalyzer(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
        if (cause instanceof NoUniqueBeanDefinitionException
                || !BUILT_ON_THE_LOCK_TABLE.contains(cause.getBeanType())
                || !(beanFactory instanceof ListableBeanFactory factory)
                || factory.getBeanNamesForType(LockTable.class, true, false).length > 0
                || factory.getBeanNamesForAnnotation(LockTableDynamoDbClient.class).length > 0) {
            return null;
        }
        // the asynchronous clients count only in a context without a synchronous one, as for the lock table
        Class<?> type = factory.getBeanNamesForType(DynamoDbClient.class, true, false).length > 0
                ? DynamoDbClient.class
                : DynamoDbAsyncClient.class;
        String typeName = type.getSimpleName();
        List<String> clients = unmarkedCandidates(factory, type);
        if (clients.size() < 2) {
            return null;
        }
        List<String> quoted = clients.stream().map(name -> "'" + name + "'").toList();
        String named =
                String.join(", ", quoted.subList(0, quoted.size() - 1)) + " and " + quoted.get(quoted.size() - 1);
        String missing = cause.getBeanType().getSimpleName();
        String needing = needing(rootFailure);
        return new FailureAnalysis(
                (needing == null ? "No" : "The bean '" + needing + "' needs a " + missing + ", but no")
                        + " LockTable was configured: the context has " + clients.size()
                        + " " + typeName + " beans, " + named + ", none of them marked @LockTableDynamoDbClient or"
                        + " @Primary, so the starter cannot tell which one the locks should use.",
                "Mark the " + typeName
                        + " the locks should use with @LockTableDynamoDbClient (with @Bean(defaultCandidate"
                        + " = false) the rest of the application keeps getting the other one), or mark one of "
                        + named + " with @Primary; or define a LockTable bean of your own.",
                cause);
    }

    /** The client beans a plain injection would choose among: default candidates; empty if one is primary. */
    private static List<String> unmarkedCandidates(ListableBeanFactory factory, Class<?> type) {
        List<String> names = new ArrayList<>();
        for (String name : factory.getBeanNamesForType(type, true, false)) {
            BeanDefinition definition = definition(factory, name);
            if (definition == null) {
                names.add(name);
                continue;
            }
            if (definition.isPrimary()) {
                return List.of();
            }
            boolean defaultCandidate =
                    !(definition instanceof AbstractBeanDefinition bean) || bean.isDefaultCandidate();
            if (definition.isAutowireCandidate() && defaultCandidate) {
                names.add(name);
            }
        }
        return names;
    }

    private static @Nullable BeanDefinition definition(ListableBeanFactory factory, String name) {
        if (factory instanceof ConfigurableListableBeanFactory configurable
                && configurable.containsBeanDefinition(name)) {
            return configurable.getMergedBeanDefinition(name);
        }
        return null;
    }

    /** The bean whose creation needed the missing one, the innermost named in the failure. */
    private static @Nullable String needing(Throwable failure) {
        String needing = null;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof BeanCreationException creation && creation.getBeanName() != null) {
                needing = creation.getBeanName();
            }
        }
        return needing;
    }
}
