package io.locktable.spring;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The Spring AOP advisor behind {@link LeaderOnly}: it matches methods annotated with it, and its interceptor runs
 * a call only while this instance leads the method's name (see {@link LeaderOnly} for the semantics). It needs no
 * AspectJ weaver: it applies through the context's auto-proxy creator, with interface-based or class-based proxies
 * as {@code spring.aop.proxy-target-class} says.
 *
 * <p>At startup, once every singleton exists, it reads the {@code @LeaderOnly} methods of every bean of the
 * context, checks their declarations (a primitive return type, a name that does not resolve, a lease out of range,
 * two leases for one name fail startup with a description of what to change) and registers each name with the
 * {@link LeaderRunner}. A name first met at a call later (a bean created after startup) is registered then; that
 * first call is skipped.
 *
 * <p>Its order is {@link #DEFAULT_ORDER}, ahead of Spring's transaction and cache advisors, so a skipped call opens
 * no transaction. Declare a bean of this type to replace the auto-configured one.
 */
public final class LeaderOnlyAdvisor extends LockAnnotationAdvisor<LeaderOnlyMethods.Target, LeaderRunner> {

    /** The default order: early among advisors, so the leadership is checked before transactions start. */
    public static final int DEFAULT_ORDER = LockAnnotationAdvisor.ORDER;

    private static final long serialVersionUID = 1L;

    private final transient LeaderOnlyMethods methods;

    /**
     * Creates the advisor.
     *
     * @param defaultLeaseDuration the lease of methods that set none, such as {@code locktable.lease-duration}; read
     *     at startup
     */
    public LeaderOnlyAdvisor(Supplier<Duration> defaultLeaseDuration) {
        this(new LeaderOnlyMethods(defaultLeaseDuration), defaultLeaseDuration);
    }

    private LeaderOnlyAdvisor(LeaderOnlyMethods methods, Supplier<Duration> defaultLeaseDuration) {
        super(
                LeaderOnly.class,
                LeaderRunner.class,
                methods,
                defaultLeaseDuration,
                runner -> new LeaderOnlyInterceptor(methods, runner));
        this.methods = methods;
    }

    @Override
    Map<String, LeaderOnlyMethods.Target> scan(ConfigurableListableBeanFactory factory) {
        Map<String, LeaderOnlyMethods.Target> byName = new TreeMap<>();
        methods.scan(factory, target -> {
            LeaderOnlyMethods.Target other = byName.putIfAbsent(target.name(), target);
            if (other != null && !other.leaseDuration().equals(target.leaseDuration())) {
                throw new MethodDeclarationException(
                        "The leadership '" + target.name() + "' has two lease durations: " + other.leaseDuration()
                                + " on " + other.method() + " and " + target.leaseDuration() + " on "
                                + target.method() + ".",
                        "Give the methods that share a name the same leaseDuration, or different names.");
            }
        });
        return byName;
    }

    @Override
    void register(LeaderRunner runner, LeaderOnlyMethods.Target leadership) {
        runner.register(leadership.name(), leadership.leaseDuration());
    }

    @Override
    String withoutRuntime() {
        return "No LeaderRunner: this instance never leads, and every call of the @LeaderOnly methods of {} is"
                + " skipped. Either locktable.leader.enabled=false, or the context has no single LockTable (several"
                + " DynamoDbClient beans, none of them @Primary or marked @LockTableDynamoDbClient, or several"
                + " LockTable beans, none of them @Primary)";
    }
}
