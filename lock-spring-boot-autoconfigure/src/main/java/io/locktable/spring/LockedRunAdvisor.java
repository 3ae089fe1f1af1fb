package io.locktable.spring;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
public final class LockedRunAdvisor extends LockAnnotationAdvisor<LockedRuns> {

    /** The default order: early among advisors, so the lock is taken before transactions start. */
    public static final int DEFAULT_ORDER = LockAnnotationAdvisor.ORDER;

    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(LockedRun.class);

    private final transient Supplier<Duration> defaultLeaseDuration;
    private final transient LockedRunMethods methods;
    private final transient LockedRunInterceptor interceptor;
    private final boolean leadEverything;

    /**
     * Creates the advisor.
     *
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
     */
    public LockedRunAdvisor(Supplier<Duration> defaultLeaseDuration) {
        this(defaultLeaseDuration, new LockedRunMethods(defaultLeaseDuration), false);
    }

    /**
     * Creates the advisor, for tests that run every call or not.
     *
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
     * @param leadEverything true to run every call, with no lock taken and no lease bound: the test mode of {@code
     *     locktable.test.lead-everything}, which the auto-configuration enables only with {@code
     *     lock-spring-boot-test} on the class path. The declarations are checked as always
     */
    public LockedRunAdvisor(Supplier<Duration> defaultLeaseDuration, boolean leadEverything) {
        this(defaultLeaseDuration, new LockedRunMethods(defaultLeaseDuration), leadEverything);
    }

    private LockedRunAdvisor(
            Supplier<Duration> defaultLeaseDuration, LockedRunMethods methods, boolean leadEverything) {
        super(LockedRun.class, LockedRuns.class, methods);
        this.defaultLeaseDuration = Objects.requireNonNull(defaultLeaseDuration, "defaultLeaseDuration");
        this.methods = methods;
        this.interceptor = new LockedRunInterceptor(methods, runtimeSupplier(), leadEverything);
        this.leadEverything = leadEverything;
    }

    /**
     * The interceptor that runs a call under its lock, or skips it.
     *
     * @return the advice
     */
    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /** Reads and checks the {@code @LockedRun} methods of every bean, and tells {@link LockedRuns} their names. */
    @Override
    void scan(ConfigurableListableBeanFactory factory) {
        defaultLeaseDuration.get(); // checks the property even when no method uses it
        Set<String> names = new TreeSet<>();
        methods.scan(factory, target -> names.add(target.name()));
        LockedRuns found = runtime();
        if (found == null) {
            if (!names.isEmpty() && !leadEverything) {
                log.warn(
                        "No LockedRuns: every call of the @LockedRun methods of {} is skipped, because the context has"
                                + " no single LockTable (several DynamoDbClient beans, none of them @Primary or marked"
                                + " @LockTableDynamoDbClient, or several LockTable beans, none of them @Primary)",
                        names);
            }
            return;
        }
        names.forEach(found::register);
    }
}
