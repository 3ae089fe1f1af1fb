package io.locktable.spring;

import java.lang.reflect.Method;
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
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.support.annotation.AnnotationMethodMatcher;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * The Spring AOP advisor behind {@link LeaderOnly} and {@link LockedRun}: it matches the methods annotated with
 * either (on the method, inherited, or as a meta-annotation), and its interceptor runs a {@code @LeaderOnly} call
 * only while this instance leads the method's name, through the {@link LeaderRunner}, and a {@code @LockedRun} call
 * under a lock of its own, through {@link LockedRuns}. It needs no AspectJ weaver: it applies through the context's
 * auto-proxy creator, with interface-based or class-based proxies as {@code spring.aop.proxy-target-class} says.
 *
 * <p>At startup, once every singleton exists, it reads the annotated methods of every bean of the context, checks
 * their declarations (a primitive return type, work that runs after the method returned, a name that does not
 * resolve, a lease out of range, two leases for one leadership, a negative {@code minHold}, a method with both
 * annotations fail startup with a description of what to change), registers each leadership with the {@link
 * LeaderRunner} and tells {@link LockedRuns} the names of the runs, which the meters tag. A name first met at a call
 * later (a bean created after startup) is registered then; a first {@code @LeaderOnly} call of it is skipped.
 *
 * <p>Its order is {@link #DEFAULT_ORDER}, ahead of Spring's transaction and cache advisors, so a skipped call opens
 * no transaction and a run's transaction commits before its lock is released. Declare a bean of this type to replace
 * the auto-configured one.
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
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
     */
    public LockAnnotationAdvisor(Supplier<Duration> defaultLeaseDuration) {
        this.defaultLeaseDuration = Objects.requireNonNull(defaultLeaseDuration, "defaultLeaseDuration");
        this.methods = new AnnotatedMethods(defaultLeaseDuration);
        this.pointcut = new InterceptablePointcut(methods);
        this.interceptor = new LockAnnotationInterceptor(methods, this::runner, this::runs);
        setOrder(DEFAULT_ORDER);
    }

    /**
     * Matches the methods that carry either annotation, on the class or inherited, directly or through a composed
     * annotation.
     *
     * @return the pointcut
     */
    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    /**
     * The interceptor that runs or skips a call.
     *
     * @return the advice
     */
    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /**
     * Receives the bean factory, where it finds the runtime beans and the annotated methods.
     *
     * @param beanFactory the bean factory of the context
     */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory listable)) {
            throw new IllegalArgumentException("LockAnnotationAdvisor needs a ConfigurableListableBeanFactory");
        }
        this.beanFactory = listable;
        ClassLoader loader = listable.getBeanClassLoader();
        if (loader != null) {
            methods.classLoader(loader); // the context's, which tells which optional libraries it has
        }
    }

    /**
     * Receives the environment that names and durations resolve against.
     *
     * @param environment the environment of the context
     */
    @Override
    public void setEnvironment(Environment environment) {
        methods.environment(environment);
    }

    /**
     * Reads and checks the annotated methods of every bean, and tells the runtime beans their names. Called by the
     * bean factory once every singleton exists.
     */
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
            leaderships
                    .values()
                    .forEach(leadership -> foundRunner.register(leadership.name(), leadership.leaseDuration()));
        } else if (!leaderships.isEmpty()) {
            LoggerFactory.getLogger(LeaderRunner.class)
                    .warn(
                            "No LeaderRunner: this instance never leads, and every call of the @LeaderOnly methods of"
                                    + " {} is skipped. Either locktable.leader.enabled=false, or the context has no"
                                    + " single LockTable (several DynamoDbClient beans, or DynamoDbAsyncClient beans"
                                    + " and no DynamoDbClient, none of them @Primary or marked"
                                    + " @LockTableDynamoDbClient, or several LockTable beans, none of them"
                                    + " @Primary)",
                            leaderships.keySet());
        }
        LockedRuns foundRuns = runs();
        if (foundRuns != null) {
            lockedRuns.forEach(foundRuns::register);
        } else if (!lockedRuns.isEmpty()) {
            LoggerFactory.getLogger(LockedRuns.class)
                    .warn(
                            "No LockedRuns: every call of the @LockedRun methods of {} is skipped, because the context"
                                    + " has no single LockTable (several DynamoDbClient beans, or DynamoDbAsyncClient"
                                    + " beans and no DynamoDbClient, none of them @Primary or marked"
                                    + " @LockTableDynamoDbClient, or several LockTable beans, none of them"
                                    + " @Primary)",
                            lockedRuns);
        }
    }

    /** The leader runner, looked up once it exists: null when the context has none (or several). */
    private @Nullable LeaderRunner runner() {
        LeaderRunner found = runner;
        if (found == null && beanFactory != null) {
            found = beanFactory.getBeanProvider(LeaderRunner.class).getIfUnique();
            runner = found;
        }
        return found;
    }

    /** The locked runs, looked up once they exist: null when the context has none (or several). */
    private @Nullable LockedRuns runs() {
        LockedRuns found = runs;
        if (found == null && beanFactory != null) {
            found = beanFactory.getBeanProvider(LockedRuns.class).getIfUnique();
            runs = found;
        }
        return found;
    }

    /**
     * Matches the methods that carry either annotation (on the method, inherited, or as a meta-annotation), and
     * refuses a class with one the proxy cannot intercept (private, static, final) with the starter's description:
     * the auto-proxy creator asks while it looks at each bean, before {@code @Scheduled}'s post-processor, which would
     * otherwise fail first with Spring's message about a method found on the proxy.
     */
    private static final class InterceptablePointcut extends StaticMethodMatcherPointcut {

        private final AnnotationMethodMatcher leaderOnly = new AnnotationMethodMatcher(LeaderOnly.class, true);
        private final AnnotationMethodMatcher lockedRun = new AnnotationMethodMatcher(LockedRun.class, true);
        private final AnnotatedMethods methods;

        InterceptablePointcut(AnnotatedMethods methods) {
            this.methods = methods;
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            if (!leaderOnly.matches(method, targetClass) && !lockedRun.matches(method, targetClass)) {
                return false;
            }
            // the auto-proxy creator stops at the first method that matches: check the class's others now too
            methods.checkInterceptable(targetClass == null ? method.getDeclaringClass() : targetClass);
            return true;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof InterceptablePointcut;
        }

        @Override
        public int hashCode() {
            return InterceptablePointcut.class.hashCode();
        }
    }
}
