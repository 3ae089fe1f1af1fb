package io.locktable.spring;

import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

/** What the interceptors of {@link LeaderOnly} and {@link LockedRun} share: the target, a skipped call, a call. */
final class Invocations {

    private Invocations() {}

    /** The class of the bean a call is made on, behind its proxy. */
    static Class<?> targetClass(MethodInvocation invocation) {
        Object target = invocation.getThis();
        return target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
    }

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
