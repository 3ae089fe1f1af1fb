package io.locktable.spring;

import io.locktable.Lease;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/**
 * Runs or skips a call: a {@code @LeaderOnly} one with the lease bound while this instance leads, a {@code @LockedRun}
 * one through {@link LockedRuns}, one whose work runs after it returned through {@link DeferredCalls}.
 */
final class LockAnnotationInterceptor implements MethodInterceptor {

    private static final Logger leaderOnlyLog = LoggerFactory.getLogger(LeaderOnly.class);
    private static final Logger lockedRunLog = LoggerFactory.getLogger(LockedRun.class);

    private final AnnotatedMethods methods;
    private final Supplier<@Nullable LeaderRunner> runner;
    private final Supplier<@Nullable LockedRuns> runs;
    private final DeferredCalls deferredCalls;

    LockAnnotationInterceptor(
            AnnotatedMethods methods, Supplier<@Nullable LeaderRunner> runner, Supplier<@Nullable LockedRuns> runs) {
        this.methods = methods;
        this.runner = runner;
        this.runs = runs;
        this.deferredCalls = new DeferredCalls(runner, runs);
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object bean = invocation.getThis();
        AnnotatedMethods.Declared declared =
                methods.resolve(method, bean == null ? method.getDeclaringClass() : AopUtils.getTargetClass(bean));
        DeferredCalls.Shape deferred = DeferredCalls.shape(method);
        if (deferred != null) {
            return deferredCalls.call(declared, deferred, invocation);
        }
        if (declared.kind() == AnnotatedMethods.Kind.LOCKED_RUN) {
            LockedRuns current = runs.get();
            if (current == null) {
                lockedRunLog.debug("Skipped {}: the context has no single lock table", declared.method());
                return skipped(method);
            }
            String name = declared.lockName(bean, invocation.getArguments()); // a bad name fails the call
            return current.call(declared, name, method, () -> proceed(invocation));
        }
        LeaderRunner current = runner.get();
        if (current == null) {
            leaderOnlyLog.debug("Skipped {}: the context has no single lock table", declared.method());
            return skipped(method);
        }
        LeadershipGate gate = current.register(declared.name(), declared.leaseDuration());
        Optional<Lease> lease = gate.enter();
        if (lease.isEmpty()) {
            leaderOnlyLog.debug("Skipped {}: this instance does not lead '{}'", declared.method(), declared.name());
            return skipped(method);
        }
        // with interruptOnLoss, the term's end interrupts the call through the lease's own registration
        try (Lease.Registration stop = declared.interruptOnLoss() ? lease.get().interruptOnEnd() : () -> {}) {
            return lease.get().callAsCurrent(() -> proceed(invocation));
        } finally {
            gate.exit();
        }
    }

    /** What a skipped call returns: empty for a method declared to return {@code Optional}, else null. */
    static @Nullable Object skipped(Method method) {
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
