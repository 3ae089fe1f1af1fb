package io.locktable.spring;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
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
 * What the advisors of {@link LeaderOnly} and {@link LockedRun} share: a pointcut on the annotation (on the method,
 * inherited, or as a meta-annotation), the interceptor, the bean factory where each finds its runtime bean and the
 * annotated methods of every bean, the environment their declarations resolve against, and the startup scan once
 * every singleton exists: every declaration is read and checked, and the runtime bean is told the names.
 *
 * @param <T> what a method's declaration resolves to
 * @param <R> the runtime bean the interceptor hands calls to, such as the {@link LeaderRunner}
 */
abstract class LockAnnotationAdvisor<T, R> extends AbstractPointcutAdvisor
        implements BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

    /** The default order of both advisors: early among advisors, so that a skipped call opens no transaction. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    private static final long serialVersionUID = 1L;

    private final transient Class<R> runtimeType;
    private final transient AnnotatedMethods<?, T> methods;
    private final transient Supplier<Duration> defaultLeaseDuration;
    private final transient Pointcut pointcut;
    private final transient MethodInterceptor interceptor;
    private transient volatile @Nullable ConfigurableListableBeanFactory beanFactory;
    private transient volatile @Nullable R runtime;

    LockAnnotationAdvisor(
            Class<? extends Annotation> annotation,
            Class<R> runtimeType,
            AnnotatedMethods<?, T> methods,
            Supplier<Duration> defaultLeaseDuration,
            Function<Supplier<R>, MethodInterceptor> interceptor) {
        this.runtimeType = runtimeType;
        this.methods = methods;
        this.defaultLeaseDuration = Objects.requireNonNull(defaultLeaseDuration, "defaultLeaseDuration");
        this.pointcut = new InterceptablePointcut(new AnnotationMethodMatcher(annotation, true), methods);
        this.interceptor = interceptor.apply(this::runtime);
        setOrder(ORDER);
    }

    /**
     * Matches the methods that carry the annotation, on the class or inherited, directly or through a composed
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
     * Receives the bean factory, where it finds its runtime bean and the annotated methods.
     *
     * @param beanFactory the bean factory of the context
     */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory listable)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " needs a ConfigurableListableBeanFactory");
        }
        this.beanFactory = listable;
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
     * Reads and checks the annotated methods of every bean, and tells the runtime bean their names. Called by the
     * bean factory once every singleton exists.
     */
    @Override
    public void afterSingletonsInstantiated() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (factory == null) {
            return;
        }
        defaultLeaseDuration.get(); // checks the property even when no method uses it
        Map<String, T> byName = scan(factory);
        R found = runtime();
        if (found == null) {
            if (!byName.isEmpty()) {
                LoggerFactory.getLogger(runtimeType).warn(withoutRuntime(), byName.keySet());
            }
            return;
        }
        byName.values().forEach(declared -> register(found, declared));
    }

    /**
     * Reads and checks the annotated methods of every bean of the factory (see {@link AnnotatedMethods#scan}).
     *
     * @return the declarations by name, sorted
     * @throws MethodDeclarationException for a method that cannot work as declared
     */
    abstract Map<String, T> scan(ConfigurableListableBeanFactory factory);

    /** Tells the runtime bean of a name found at startup. */
    abstract void register(R runtime, T declared);

    /** The WARN when the context has no runtime bean, with {@code {}} for the names. */
    abstract String withoutRuntime();

    /**
     * Matches the methods that carry the annotation (on the method, inherited, or as a meta-annotation), and refuses
     * a class with one the proxy cannot intercept (private, static, final) with the starter's description: the
     * auto-proxy creator asks while it looks at each bean, before {@code @Scheduled}'s post-processor, which would
     * otherwise fail first with Spring's message about a method found on the proxy.
     */
    private static final class InterceptablePointcut extends StaticMethodMatcherPointcut {

        private final AnnotationMethodMatcher annotated;
        private final AnnotatedMethods<?, ?> methods;

        InterceptablePointcut(AnnotationMethodMatcher annotated, AnnotatedMethods<?, ?> methods) {
            this.annotated = annotated;
            this.methods = methods;
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            if (!annotated.matches(method, targetClass)) {
                return false;
            }
            // the auto-proxy creator stops at the first method that matches: check the class's others now too
            methods.checkInterceptable(targetClass == null ? method.getDeclaringClass() : targetClass);
            return true;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof InterceptablePointcut pointcut && annotated.equals(pointcut.annotated);
        }

        @Override
        public int hashCode() {
            return annotated.hashCode();
        }
    }

    /** The runtime bean, looked up once it exists: null when the context has none (or several). */
    final R runtime() {
        R found = runtime;
        if (found == null && beanFactory != null) {
            found = beanFactory.getBeanProvider(runtimeType).getIfUnique();
            runtime = found;
        }
        return found;
    }
}
