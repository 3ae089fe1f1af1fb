package io.locktable.spring;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.annotation.AnnotationMethodMatcher;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * The Spring AOP advisor behind {@link LeaderOnly} and {@link LockedRun}: a {@code @LeaderOnly} call runs only while
 * this instance leads (through the {@link LeaderRunner}), a {@code @LockedRun} call under a lock of its own (through
 * {@link LockedRuns}). It applies through the context's auto-proxy creator, with the proxies {@code
 * spring.aop.proxy-target-class} asks for. Once every singleton exists it reads and checks every bean's annotated
 * methods (a declaration that cannot work fails startup, naming the method and what to change) and registers their
 * names; a name first met later, at a call, is registered then, and that first {@code @LeaderOnly} call skipped.
 *
 * <p>Its order, {@link #DEFAULT_ORDER}, is ahead of Spring's transaction and cache advisors, so a skipped call opens
 * no transaction and a run's transaction commits before its lock is released. A bean of this type replaces the
 * auto-configured one.
 */
public final class LockAnnotationAdvisor extends AbstractPointcutAdvisor
        implements BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

    /** The default order: early among advisors, so the leadership or the lock is checked before transactions. */
    public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    private static final long serialVersionUID = 1L;

    private final transient AnnotatedMethods methods;
    private final transient Supplier<Duration> defaultLeaseDuration;
    private final transient Pointcut pointcut;
    private final transient LockAnnotationInterceptor interceptor;
    private transient volatile @Nullable ConfigurableListableBeanFactory beanFactory;
    private transient volatile @Nullable LeaderRunner runner;
    private transient volatile @Nullable LockedRuns runs;

    /**
     * Creates the advisor.
     *
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}
     */
    public LockAnnotationAdvisor(Supplier<Duration> defaultLeaseDuration) {
        this.defaultLeaseDuration = Objects.requireNonNull(defaultLeaseDuration, "defaultLeaseDuration");
        this.methods = new AnnotatedMethods(defaultLeaseDuration);
        // the class filter refuses a class with a method the proxy cannot intercept, before @Scheduled sees it
        this.pointcut = new ComposablePointcut(
                        methods::interceptable, new AnnotationMethodMatcher(LeaderOnly.class, true))
                .union(new AnnotationMethodMatcher(LockedRun.class, true));
        this.interceptor = new LockAnnotationInterceptor(methods, this::runner, this::runs);
        setOrder(DEFAULT_ORDER);
    }

    /** {@return the pointcut: the methods that carry either annotation} */
    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    /** {@return the interceptor that runs or skips a call} */
    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /**
     * Receives the bean factory, where it finds the annotated methods and the runtime beans.
     *
     * @param beanFactory the context's {@link ConfigurableListableBeanFactory}
     */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        ConfigurableListableBeanFactory listable = (ConfigurableListableBeanFactory) beanFactory;
        this.beanFactory = listable;
        methods.classLoader = listable.getBeanClassLoader();
    }

    /**
     * Receives the environment that names and durations resolve against.
     *
     * @param environment the context's environment
     */
    @Override
    public void setEnvironment(Environment environment) {
        methods.environment = environment;
    }

    /** Reads and checks the annotated methods of every bean, and tells the runtime beans their names. */
    @Override
    public void afterSingletonsInstantiated() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (factory == null) {
            return;
        }
        defaultLeaseDuration.get(); // checks the property even when no method uses it
        Map<String, AnnotatedMethods.Declared> leaderships = new TreeMap<>();
        TreeSet<String> lockedRuns = new TreeSet<>();
        methods.scan(factory, declared -> {
            if (declared.kind() == AnnotatedMethods.Kind.LOCKED_RUN) {
                lockedRuns.add(declared.name());
                return;
            }
            AnnotatedMethods.Declared other = leaderships.putIfAbsent(declared.name(), declared);
            if (other != null && !other.leaseDuration().equals(declared.leaseDuration())) {
                throw new MethodDeclarationException(
                        "The leadership '" + declared.name() + "' has two lease durations: " + other.leaseDuration()
                                + " on " + other.method() + " and " + declared.leaseDuration() + " on "
                                + declared.method() + ".",
                        "Give the methods that share a name the same leaseDuration, or different names.");
            }
        });
        LeaderRunner foundRunner = runner();
        if (foundRunner != null) {
            leaderships.values().forEach(leader -> foundRunner.register(leader.name(), leader.leaseDuration()));
        } else if (!leaderships.isEmpty()) {
            warnSkipped("LeaderRunner (locktable.leader.enabled=false, or", LeaderOnly.class, leaderships.keySet());
        }
        LockedRuns foundRuns = runs();
        if (foundRuns != null) {
            lockedRuns.forEach(foundRuns::register);
        } else if (!lockedRuns.isEmpty()) {
            warnSkipped("LockedRuns (", LockedRun.class, lockedRuns);
        }
    }

    private static void warnSkipped(String missing, Class<?> annotation, Set<String> names) {
        LoggerFactory.getLogger(annotation)
                .warn(
                        "No {}the context has no single LockTable: several DynamoDbClient beans, or"
                                + " DynamoDbAsyncClient beans and no DynamoDbClient, none of them @Primary or marked"
                                + " @LockTableDynamoDbClient, or several LockTable beans, none of them @Primary):"
                                + " every call of the @{} methods of {} is skipped",
                        missing,
                        annotation.getSimpleName(),
                        names);
    }

    private @Nullable LeaderRunner runner() {
        LeaderRunner found = runner;
        return found != null ? found : (runner = unique(LeaderRunner.class));
    }

    private @Nullable LockedRuns runs() {
        LockedRuns found = runs;
        return found != null ? found : (runs = unique(LockedRuns.class));
    }

    /** The bean of a type once it exists: null while the context has none (or several). */
    private <T> @Nullable T unique(Class<T> type) {
        ConfigurableListableBeanFactory factory = beanFactory;
        return factory == null ? null : factory.getBeanProvider(type).getIfUnique();
    }
}
