package io.locktable.spring;

import java.lang.annotation.Annotation;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * What the advisors of {@link LeaderOnly} and {@link LockedRun} share: a pointcut on the annotation (on the method,
 * inherited, or as a meta-annotation), the bean factory where each finds its runtime bean and the annotated methods
 * of every bean, the environment their declarations resolve against, and the startup scan once every singleton
 * exists.
 *
 * @param <R> the runtime bean the interceptor hands calls to, such as the {@link LeaderRunner}
 */
abstract class LockAnnotationAdvisor<R> extends AbstractPointcutAdvisor
        implements BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

    /** The default order of both advisors: early among advisors, so that a skipped call opens no transaction. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    private static final long serialVersionUID = 1L;

    private final transient Class<R> runtimeType;
    private final transient AnnotatedMethods<?, ?> methods;
    private final transient Pointcut pointcut;
    private transient volatile ConfigurableListableBeanFactory beanFactory;
    private transient volatile R runtime;

    LockAnnotationAdvisor(
            Class<? extends Annotation> annotation, Class<R> runtimeType, AnnotatedMethods<?, ?> methods) {
        this.runtimeType = runtimeType;
        this.methods = methods;
        this.pointcut = new AnnotationMatchingPointcut(null, annotation, true);
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
    public abstract Advice getAdvice();

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
        if (factory != null) {
            scan(factory);
        }
    }

    /** Reads and checks the annotated methods of every bean of the factory; see {@link AnnotatedMethods#scan}. */
    abstract void scan(ConfigurableListableBeanFactory factory);

    /** The runtime bean, looked up once it exists: null when the context has none (or several). */
    final R runtime() {
        R found = runtime;
        if (found == null && beanFactory != null) {
            found = beanFactory.getBeanProvider(runtimeType).getIfUnique();
            runtime = found;
        }
        return found;
    }

    /** The runtime bean's supplier, for the interceptor. */
    final Supplier<R> runtimeSupplier() {
        return this::runtime;
    }
}
