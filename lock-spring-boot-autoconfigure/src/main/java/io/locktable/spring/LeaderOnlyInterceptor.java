package io.locktable.spring;

import io.locktable.Lease;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/** Runs a {@link LeaderOnly} call with the lease bound while this instance leads; skips it otherwise. */
final class LeaderOnlyInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(LeaderOnly.class);

    private final LeaderOnlyMethods methods;
    private final Supplier<LeaderRunner> runner;

    LeaderOnlyInterceptor(LeaderOnlyMethods methods, Supplier<LeaderRunner> runner) {
        this.methods = methods;
        this.runner = runner;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? method.getDeclaringClass() : AopUtils.getTargetClass(target);
        LeaderOnlyMethods.Target leadership = methods.resolve(method, targetClass);
        LeaderRunner current = runner.get();
        if (current == null) {
            log.debug("Skipped {}: no leader runner, this instance never leads", leadership.method());
            return skipped(method);
        }
        Leadership registered = current.register(leadership.name(), leadership.leaseDuration());
        Optional<Lease> lease = registered.enter();
        if (lease.isEmpty()) {
            log.debug("Skipped {}: this instance does not lead '{}'", leadership.method(), leadership.name());
            return skipped(method);
        }
        try {
            return lease.get().callAsCurrent(() -> proceed(invocation));
        } finally {
            registered.exit();
        }
    }

    private static Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }

    private static Object skipped(Method method) {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }
}
