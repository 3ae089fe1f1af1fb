package io.locktable.spring;

import io.locktable.Lease;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LeaderOnly} call with the lease bound while this instance leads; skips it otherwise. In the test
 * mode that leads everything, it runs every call, with no lease bound.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(LeaderOnly.class);

    private final LeaderOnlyMethods methods;
    private final Supplier<LeaderRunner> runner;
    private final boolean leadEverything;

    LeaderOnlyInterceptor(LeaderOnlyMethods methods, Supplier<LeaderRunner> runner, boolean leadEverything) {
        this.methods = methods;
        this.runner = runner;
        this.leadEverything = leadEverything;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        LeaderOnlyMethods.Target leadership = methods.resolve(method, Invocations.targetClass(invocation));
        if (leadEverything) {
            return invocation.proceed();
        }
        LeaderRunner current = runner.get();
        if (current == null) {
            log.debug("Skipped {}: no leader runner, this instance never leads", leadership.method());
            return Invocations.skipped(method);
        }
        Leadership registered = current.register(leadership.name(), leadership.leaseDuration());
        Optional<Lease> lease = registered.enter();
        if (lease.isEmpty()) {
            log.debug("Skipped {}: this instance does not lead '{}'", leadership.method(), leadership.name());
            return Invocations.skipped(method);
        }
        try {
            return lease.get().callAsCurrent(() -> Invocations.proceed(invocation));
        } finally {
            registered.exit();
        }
    }
}
