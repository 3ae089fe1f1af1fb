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
import org.springframework.core.env.Environment;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Replaces Spring's "required a bean of type LockTable" when the starter backed off because of several unmarked
 * clients: names them, and says to mark one with {@link LockTableDynamoDbClient @LockTableDynamoDbClient} or {@code
 * @Primary}. Likewise replaces Spring's "expected single matching bean" when the application's own bean injects one of
 * those clients, so the fix said covers both the application and the locks. Ordered before Spring Boot's analyses of
 * a missing bean and of several.
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
        if (cause instanceof NoUniqueBeanDefinitionException unique) {
            return severalClients(rootFailure, unique);
        }
        // no bean factory when the context failed before it had one
        if (!BUILT_ON_THE_LOCK_TABLE.contains(cause.getBeanType())
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
        String needing = innermostBean(rootFailure);
        String opening = needing == null
                ? "No"
                : "The bean '" + needing + "' needs a " + cause.getBeanType().getSimpleName() + ", but no";
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

    /**
     * The application's own bean needs one client of several unmarked ones: Spring would say "expected single matching
     * bean". The starter backed off for the same reason, so say in its words what to mark, for both.
     */
    private @Nullable FailureAnalysis severalClients(Throwable rootFailure, NoUniqueBeanDefinitionException cause) {
        Class<?> type = cause.getBeanType();
        if ((type != DynamoDbClient.class && type != DynamoDbAsyncClient.class)
                || !(beanFactory instanceof ConfigurableListableBeanFactory factory)
                || factory.getBeanNamesForType(LockTable.class, true, false).length > 0
                || factory.getBeanNamesForAnnotation(LockTableDynamoDbClient.class).length > 0
                || "false".equals(enabled(factory))) {
            return null;
        }
        List<String> clients = new ArrayList<>();
        Iterable<String> found = cause.getBeanNamesFound() != null
                ? cause.getBeanNamesFound()
                : List.of(factory.getBeanNamesForType(type, true, false));
        found.forEach(name -> clients.add("'" + name + "'"));
        if (clients.size() < 2) {
            return null;
        }
        String named =
                String.join(", ", clients.subList(0, clients.size() - 1)) + " and " + clients.get(clients.size() - 1);
        String needing = innermostBean(rootFailure);
        String kind = type.getSimpleName();
        return new FailureAnalysis(
                (needing == null ? "A bean" : "The bean '" + needing + "'") + " needs one " + kind + ", but the"
                        + " context has " + clients.size() + ", " + named + ", none of them marked @Primary; for the"
                        + " same reason the LockTable starter cannot tell which one the locks should use, so it"
                        + " configured no LockTable.",
                "Mark the " + kind + " your code injects without a qualifier with @Primary: the locks use it too."
                        + " For the locks to use another one, mark that one with @LockTableDynamoDbClient (with"
                        + " @Bean(defaultCandidate = false) your code keeps getting the primary one). Or name the"
                        + " client where your code injects it, with @Qualifier.",
                cause);
    }

    private static @Nullable String enabled(ConfigurableListableBeanFactory factory) {
        return factory.containsBean("environment")
                ? factory.getBean("environment", Environment.class).getProperty("locktable.enabled")
                : null;
    }

    /** The innermost bean whose creation failed, or null. */
    private static @Nullable String innermostBean(Throwable rootFailure) {
        String name = null;
        for (Throwable failure = rootFailure; failure != null; failure = failure.getCause()) {
            if (failure instanceof BeanCreationException creation && creation.getBeanName() != null) {
                name = creation.getBeanName();
            }
        }
        return name;
    }
}
