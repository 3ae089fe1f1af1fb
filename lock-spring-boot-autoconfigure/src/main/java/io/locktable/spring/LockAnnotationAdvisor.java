package io.locktable.spring;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
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
 * The Spring AOP advisor behind {@link LeaderOnly} and {@link LockedRun}. It matches the methods that carry either
 * (on the method, inherited, or composed) and runs a {@code @LeaderOnly} call only while this instance leads, through
 * the {@link LeaderRunner}, and a {@code @LockedRun} call under a lock of its own, through {@link LockedRuns}. It
 * applies through the context's auto-proxy creator, with the proxies {@code spring.aop.proxy-target-class} asks for.
 *
 * <p>Once every singleton exists it reads and checks the annotated methods of every bean: a declaration that cannot
 * work fails startup with a failure analysis naming the method and what to change. It then registers each leadership
 * with the {@code LeaderRunner} and tells {@code LockedRuns} the run names. A name first met at a call later (a bean
 * created after startup) is registered then; a first {@code @LeaderOnly} call of it is skipped.
 *
 * <p>Its order, {@link #DEFAULT_ORDER}, is ahead of Spring's transaction and cache advisors, so a skipped call opens
 * no transaction and a run's transaction commits before its lock is released. Declare a bean of this type to replace
 * the auto-configured one.
 */
public final class LockAnnotationAdvisor extends AbstractPointcutAdvisor
        implements BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

    /** The default order: early among advisors, so the leadership or the lock is checked before transactions. */
    public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    private static final long serialVersionUID = 1L;

    private static final String NO_SINGLE_LOCK_TABLE = "the context has no single LockTable (several DynamoDbClient"
            + " beans, or DynamoDbAsyncClient beans and no DynamoDbClient, none of them @Primary or marked"
            + " @LockTableDynamoDbClient, or several LockTable beans, none of them @Primary)";

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
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
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

    /**
     * Matches the methods that carry either annotation.
     *
     * @return the pointcut
     */
    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    /**
     * Runs or skips a call.
     *
     * @return the interceptor
     */
    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /**
     * Receives the bean factory, where it finds the runtime beans and the annotated methods.
     *
     * @param beanFactory the bean factory of the context, a {@link ConfigurableListableBeanFactory}
     */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        ConfigurableListableBeanFactory listable = (ConfigurableListableBeanFactory) beanFactory;
        this.beanFactory = listable;
        if (listable.getBeanClassLoader() != null) {
            methods.classLoader = listable.getBeanClassLoader();
        }
    }

    /**
     * Receives the environment that names and durations resolve against.
     *
     * @param environment the environment of the context
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
                        "Give the methods that share a name the same leaseDuration, or different names.",
                        null);
            }
        });
        LeaderRunner foundRunner = runner();
        if (foundRunner != null) {
            leaderships.values().forEach(leader -> foundRunner.register(leader.name(), leader.leaseDuration()));
        } else if (!leaderships.isEmpty()) {
            LoggerFactory.getLogger(LeaderRunner.class)
                    .warn(
                            "No LeaderRunner: this instance never leads, and every call of the @LeaderOnly methods of"
                                    + " {} is skipped. Either locktable.leader.enabled=false, or "
                                    + NO_SINGLE_LOCK_TABLE,
                            leaderships.keySet());
        }
        LockedRuns foundRuns = runs();
        if (foundRuns != null) {
            lockedRuns.forEach(foundRuns::register);
        } else if (!lockedRuns.isEmpty()) {
            LoggerFactory.getLogger(LockedRuns.class)
                    .warn(
                            "No LockedRuns: every call of the @LockedRun methods of {} is skipped, because "
                                    + NO_SINGLE_LOCK_TABLE,
                            lockedRuns);
        }
    }

    /** The leader runner once it exists: null while the context has none (or several). */
    private @Nullable LeaderRunner runner() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (runner == null && factory != null) {
            runner = factory.getBeanProvider(LeaderRunner.class).getIfUnique();
        }
        return runner;
    }

    /** The locked runs once they exist: null while the context has none (or several). */
    private @Nullable LockedRuns runs() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (runs == null && factory != null) {
            runs = factory.getBeanProvider(LockedRuns.class).getIfUnique();
        }
        return runs;
    }
}
