package io.locktable.spring;

import java.lang.reflect.Method;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LockedRun} call under its lock, through {@link LockedRuns}; skips it when there is none. In the test
 * mode that leads everything, it runs every call, with no lock taken.
 */
final class LockedRunInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(LockedRun.class);

    private final LockedRunMethods methods;
    private final Supplier<LockedRuns> runs;
    private final boolean leadEverything;

    LockedRunInterceptor(LockedRunMethods methods, Supplier<LockedRuns> runs, boolean leadEverything) {
        this.methods = methods;
        this.runs = runs;
        this.leadEverything = leadEverything;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        LockedRunMethods.Target lock = methods.resolve(method, Invocations.targetClass(invocation));
        if (leadEverything) {
            return invocation.proceed();
        }
        LockedRuns current = runs.get();
        if (current == null) {
            log.debug("Skipped {}: no LockedRuns (the context has no single LockTable)", lock.method());
            return Invocations.skipped(method);
        }
        return current.call(lock, method, () -> Invocations.proceed(invocation));
    }
}
