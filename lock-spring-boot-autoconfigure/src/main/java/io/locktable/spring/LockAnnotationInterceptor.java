package io.locktable.spring;

import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.springframework.aop.support.AopUtils;

/**
 * What the interceptors of {@link LeaderOnly} and {@link LockedRun} share: each call's declaration is read (and
 * checked) first; without the runtime bean (no single lock table) it is skipped; otherwise the runtime bean
 * decides.
 *
 * @param <T> what a method's declaration resolves to
 * @param <R> the runtime bean, such as the {@link LeaderRunner}
 */
abstract class LockAnnotationInterceptor<T, R> implements MethodInterceptor {

    private final AnnotatedMethods<?, T> methods;
    private final Supplier<R> runtime;
    private final Logger log;

    LockAnnotationInterceptor(AnnotatedMethods<?, T> methods, Supplier<R> runtime, Logger log) {
        this.methods = methods;
        this.runtime = runtime;
        this.log = log;
    }

    @Override
    public final Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object bean = invocation.getThis();
        T declared = methods.resolve(method, bean == null ? method.getDeclaringClass() : AopUtils.getTargetClass(bean));
        R current = runtime.get();
        if (current == null) {
            log.debug("Skipped {}: the context has no single lock table", method);
            return skipped(method);
        }
        return call(current, declared, invocation);
    }

    /** Runs or skips a call, given the runtime bean and the method's declaration. */
    abstract Object call(R runtime, T declared, MethodInvocation invocation) throws Throwable;

    /** What a skipped call returns: empty for a method declared to return {@code Optional}, else null. */
    static Object skipped(Method method) {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    /** Proceeds with a call, for a {@code Callable}: a checked throwable that is not an exception is wrapped. */
    static Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }
}
