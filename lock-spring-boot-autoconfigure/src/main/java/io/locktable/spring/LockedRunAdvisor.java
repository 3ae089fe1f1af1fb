package io.locktable.spring;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The Spring AOP advisor behind {@link LockedRun}: it matches methods annotated with it, and its interceptor runs
 * each call under a lock of its own through {@link LockedRuns} (see {@link LockedRun} for the semantics). Like the
 * {@link LeaderOnlyAdvisor}, it needs no AspectJ weaver.
 *
 * <p>At startup, once every singleton exists, it reads the {@code @LockedRun} methods of every bean of the context,
 * checks their declarations (a primitive return type, work that runs after the method returned, a name that does not
 * resolve, a lease out of range, a negative {@code minHold}, a method that also carries {@code @LeaderOnly} fail
 * startup with a description of what to change) and tells {@link LockedRuns} their names, which the meters tag.
 *
 * <p>Its order is {@link #DEFAULT_ORDER}, ahead of Spring's transaction and cache advisors, so a skipped call opens
 * no transaction and a run's transaction commits before its lock is released. Declare a bean of this type to
 * replace the auto-configured one.
 */
public final class LockedRunAdvisor extends LockAnnotationAdvisor<LockedRunMethods.Target, LockedRuns> {

    /** The default order: early among advisors, so the lock is taken before transactions start. */
    public static final int DEFAULT_ORDER = LockAnnotationAdvisor.ORDER;

    private static final long serialVersionUID = 1L;

    private final transient LockedRunMethods methods;

    /**
     * Creates the advisor.
     *
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
     */
    public LockedRunAdvisor(Supplier<Duration> defaultLeaseDuration) {
        this(new LockedRunMethods(defaultLeaseDuration), defaultLeaseDuration);
    }

    private LockedRunAdvisor(LockedRunMethods methods, Supplier<Duration> defaultLeaseDuration) {
        super(
                LockedRun.class,
                LockedRuns.class,
                methods,
                defaultLeaseDuration,
                runs -> new LockedRunInterceptor(methods, runs));
        this.methods = methods;
    }

    @Override
    Map<String, LockedRunMethods.Target> scan(ConfigurableListableBeanFactory factory) {
        Map<String, LockedRunMethods.Target> byName = new TreeMap<>();
        methods.scan(factory, target -> byName.putIfAbsent(target.name(), target));
        return byName;
    }

    @Override
    void register(LockedRuns runs, LockedRunMethods.Target lock) {
        runs.register(lock.name());
    }

    @Override
    String withoutRuntime() {
        return "No LockedRuns: every call of the @LockedRun methods of {} is skipped, because the context has no"
                + " single LockTable (several DynamoDbClient beans, none of them @Primary or marked"
                + " @LockTableDynamoDbClient, or several LockTable beans, none of them @Primary)";
    }
}
