package io.locktable.spring;

import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LockedRun} call under its lock, through {@link LockedRuns}; skips it when there is none. In the test
 * mode that leads everything, it runs every call, with no lock taken.
 */
final class LockedRunInterceptor extends LockAnnotationInterceptor<LockedRunMethods.Target, LockedRuns> {

    LockedRunInterceptor(LockedRunMethods methods, Supplier<LockedRuns> runs, boolean leadEverything) {
        super(methods, runs, leadEverything, LoggerFactory.getLogger(LockedRun.class));
    }

    @Override
    Object call(LockedRuns runs, LockedRunMethods.Target lock, MethodInvocation invocation) throws Exception {
        return runs.call(lock, invocation.getMethod(), () -> proceed(invocation));
    }
}
