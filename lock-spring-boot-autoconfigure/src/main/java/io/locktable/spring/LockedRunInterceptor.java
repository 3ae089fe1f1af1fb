package io.locktable.spring;

import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LockedRun} call under its lock, through {@link LockedRuns}; skips it when there is none.
 */
final class LockedRunInterceptor extends LockAnnotationInterceptor<LockedRunMethods.Target, LockedRuns> {

    LockedRunInterceptor(LockedRunMethods methods, Supplier<LockedRuns> runs) {
        super(methods, runs, LoggerFactory.getLogger(LockedRun.class));
    }

    @Override
    Object call(LockedRuns runs, LockedRunMethods.Target lock, MethodInvocation invocation) throws Exception {
        return runs.call(lock, invocation.getMethod(), () -> proceed(invocation));
    }
}
