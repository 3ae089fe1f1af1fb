package io.locktable.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The Spring AOP advisor behind {@link LeaderOnly}: it matches methods annotated with it, and its interceptor runs
 * a call only while this instance leads the method's name (see {@link LeaderOnly} for the semantics). It needs no
 * AspectJ weaver: it applies through the context's auto-proxy creator, with interface-based or class-based proxies
 * as {@code spring.aop.proxy-target-class} says.
 *
 * <p>At startup, once every singleton exists, it reads the {@code @LeaderOnly} methods of every bean of the
 * context, checks their declarations (a primitive return type, a name that does not resolve, a lease out of range,
 * two leases for one name fail startup with a description of what to change) and registers each name with the
 * {@link LeaderRunner}. A name first met at a call later (a bean created after startup) is registered then; that
 * first call is skipped.
 *
 * <p>Its order is {@link #DEFAULT_ORDER}, ahead of Spring's transaction and cache advisors, so a skipped call opens
 * no transaction. Declare a bean of this type to replace the auto-configured one.
 */
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor
        implements BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

    /** The default order: early among advisors, so the leadership is checked before transactions start. */
    public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);

    private final transient Supplier<Duration> defaultLeaseDuration;
    private final transient LeaderOnlyMethods methods;
    private final transient LeaderOnlyInterceptor interceptor;
    private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, LeaderOnly.class, true);
    private transient volatile ConfigurableListableBeanFactory beanFactory;
    private transient volatile LeaderRunner runner;

    /**
     * Creates the advisor.
     *
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
     */
    public LeaderOnlyAdvisor(Supplier<Duration> defaultLeaseDuration) {
        this.defaultLeaseDuration = Objects.requireNonNull(defaultLeaseDuration, "defaultLeaseDuration");
        this.methods = new LeaderOnlyMethods(defaultLeaseDuration);
        this.interceptor = new LeaderOnlyInterceptor(methods, this::runner);
        setOrder(DEFAULT_ORDER);
    }

    /**
     * Matches the methods annotated with {@link LeaderOnly}, on the class or inherited.
     *
     * @return the pointcut
     */
    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    /**
     * The interceptor that admits or skips a call.
     *
     * @return the advice
     */
    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /**
     * Receives the bean factory, where it finds the {@link LeaderRunner} and the {@code @LeaderOnly} methods.
     *
     * @param beanFactory the bean factory of the context
     */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory listable)) {
            throw new IllegalArgumentException("LeaderOnlyAdvisor needs a ConfigurableListableBeanFactory");
        }
        this.beanFactory = listable;
    }

    /**
     * Receives the environment that names and leases resolve against.
     *
     * @param environment the environment of the context
     */
    @Override
    public void setEnvironment(Environment environment) {
        methods.environment(environment);
    }

    /**
     * Reads and checks the {@code @LeaderOnly} methods of every bean, and registers their names with the runner.
     * Called by the bean factory once every singleton exists.
     */
    @Override
    public void afterSingletonsInstantiated() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (factory == null) {
            return;
        }
        defaultLeaseDuration.get(); // checks the property even when no method uses it
        Map<String, LeaderOnlyMethods.Target> byName = new TreeMap<>();
        for (String beanName : factory.getBeanDefinitionNames()) {
            Class<?> type = targetClass(factory, beanName);
            if (type == null) {
                continue; // a type that cannot be told: met at its first call
            }
            Class<?> userClass = ClassUtils.getUserClass(type);
            Map<Method, MergedAnnotation<LeaderOnly>> annotated = MethodIntrospector.selectMethods(
                    userClass,
                    (MethodIntrospector.MetadataLookup<MergedAnnotation<LeaderOnly>>) LeaderOnlyMethods::find);
            for (Method method : annotated.keySet()) {
                LeaderOnlyMethods.Target target = methods.resolve(method, userClass);
                LeaderOnlyMethods.Target other = byName.putIfAbsent(target.name(), target);
                if (other != null && !other.leaseDuration().equals(target.leaseDuration())) {
                    throw new LeaderOnlyDeclarationException(
                            "The leadership '" + target.name() + "' has two lease durations: "
                                    + other.leaseDuration() + " on " + other.method() + " and "
                                    + target.leaseDuration() + " on " + target.method() + ".",
                            "Give the methods that share a name the same leaseDuration, or different names.");
                }
            }
        }
        LeaderRunner found = runner();
        if (found == null) {
            if (!byName.isEmpty()) {
                log.warn(
                        "No LeaderRunner: this instance never leads, and every call of the @LeaderOnly methods of {}"
                                + " is skipped. Either locktable.leader.enabled=false, or the context has no single"
                                + " LockTable (several DynamoDbClient beans, none of them @Primary or marked"
                                + " @LockTableDynamoDbClient, or several LockTable beans, none of them @Primary)",
                        byName.keySet());
            }
            return;
        }
        byName.values().forEach(target -> found.register(target.name(), target.leaseDuration()));
    }

    /**
     * The class of a bean behind its proxy, whether interface-based or class-based (as Spring's own
     * {@code @EventListener} scan finds it); null when it cannot be told.
     */
    private static Class<?> targetClass(ConfigurableListableBeanFactory factory, String beanName) {
        if (ScopedProxyUtils.isScopedTarget(beanName)) {
            return null; // scanned through its scoped proxy's bean
        }
        try {
            Class<?> type = AutoProxyUtils.determineTargetClass(factory, beanName);
            if (type != null && ScopedObject.class.isAssignableFrom(type)) {
                Class<?> scoped =
                        AutoProxyUtils.determineTargetClass(factory, ScopedProxyUtils.getTargetBeanName(beanName));
                type = scoped != null ? scoped : type;
            }
            return type;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private LeaderRunner runner() {
        LeaderRunner found = runner;
        if (found == null && beanFactory != null) {
            ObjectProvider<LeaderRunner> provider = beanFactory.getBeanProvider(LeaderRunner.class);
            found = provider.getIfUnique();
            runner = found;
        }
        return found;
    }
}
