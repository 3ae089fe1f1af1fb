package io.locktable.spring;

import io.locktable.Lease;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LeaderOnly} call with the lease bound while this instance leads; skips it otherwise.
 */
final class LeaderOnlyInterceptor extends LockAnnotationInterceptor<LeaderOnlyMethods.Target, LeaderRunner> {

    private static final Logger log = LoggerFactory.getLogger(LeaderOnly.class);

    LeaderOnlyInterceptor(LeaderOnlyMethods methods, Supplier<LeaderRunner> runner) {
        super(methods, runner, log);
    }

    @Override
    Object call(LeaderRunner runner, LeaderOnlyMethods.Target leadership, MethodInvocation invocation)
            throws Exception {
        LeadershipGate registered = runner.register(leadership.name(), leadership.leaseDuration());
        Optional<Lease> lease = registered.enter();
        if (lease.isEmpty()) {
            log.debug("Skipped {}: this instance does not lead '{}'", leadership.method(), leadership.name());
            return skipped(invocation.getMethod());
        }
        try {
            return lease.get().callAsCurrent(() -> proceed(invocation));
        } finally {
            registered.exit();
        }
    }
}
