package io.locktable.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs a method only on the instance of the cluster that leads a name: on the others the call is skipped.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @LeaderOnly("order-sweeper")
 * public void sweep() {
 *     Lease lease = Lease.current().orElseThrow(); // the leader's lease, for fenced writes
 *     ...
 * }
 * }</pre>
 *
 * <p><b>Leadership.</b> At startup the {@link LeaderRunner} collects every name used by a {@code @LeaderOnly}
 * method and keeps one leadership per name: it contends for the lock of that name in the lock table and holds it
 * while this instance runs. Methods that use the same name share one leadership.
 *
 * <p><b>A call.</b> While this instance leads the name, the call runs on the caller's thread (the {@code @Scheduled}
 * thread, a request thread...) with the lease bound as {@link io.locktable.Lease#current()}. Otherwise it is
 * skipped: the method's body does not run and the call returns {@code null}, or {@link java.util.Optional#empty()}
 * for a method declared to return {@code Optional}. A method returning a primitive other than {@code void} cannot
 * be skipped and fails startup. A method whose work runs after it returned, one returning a {@code
 * CompletableFuture}, a {@code CompletionStage}, or (with Reactor) a {@code Mono}, {@code Flux} or {@code Publisher},
 * or a Kotlin suspend function, is held until its work ends: it runs with the term's lease when called (a future) or
 * subscribed (a publisher), is cancelled when the term ends, and a skipped call returns a future of {@code null} or
 * an empty publisher; other such methods (a bare {@code Future}, other reactive types) fail startup. Being the leader when the call starts does not mean staying the leader until it
 * ends: writes that must not happen after the lease was lost take {@code Lease.current().orElseThrow().heldCheck()}
 * or the {@link io.locktable.Lease#fencingToken()}.
 *
 * <p><b>Composed annotations.</b> It may be a meta-annotation of an annotation of your own, whose attributes can
 * stand for its {@link #name()} with {@link AliasFor @AliasFor}:
 *
 * <pre>{@code
 * @Retention(RetentionPolicy.RUNTIME)
 * @Target(ElementType.METHOD)
 * @LeaderOnly(leaseDuration = "2m")
 * public @interface ClusterJob {
 *     @AliasFor(annotation = LeaderOnly.class, attribute = "name")
 *     String value();
 * }
 * }</pre>
 *
 * <p><b>Where it works.</b> On public, protected and package-private methods of Spring beans, not final, called
 * through the bean's proxy, and so on {@code @Scheduled} methods; a private, static or final one fails startup. The proxy is interface-based or class-based as {@code spring.aop.proxy-target-class} says
 * (class-based by default); on an interface-based proxy only the methods of the bean's interfaces are checked. A
 * call from the bean to itself ({@code this.sweep()}) bypasses the proxy and is not checked. With {@code locktable.leader.enabled=false} there is no {@link LeaderRunner}: this instance
 * never leads, and every call is skipped.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /**
     * Alias of {@link #name()}.
     *
     * @return the name of the leadership
     */
    @AliasFor("name")
    String value() default "";

    /**
     * The name of the leadership, which is the name of its lock in the table. Placeholders such as {@code
     * ${app.sweeper.lock}} resolve against the environment. Empty (the default) means {@code
     * ${spring.application.name}}, so a service whose instances share one application name has one leader. It is
     * fixed at startup, one election per name: a {@code #{...}} expression, which {@link LockedRun} evaluates over
     * each call's arguments, fails startup here.
     *
     * @return the name of the leadership
     */
    @AliasFor("value")
    String name() default "";

    /**
     * How long the leader's lease lasts without a renewal, such as {@code "30s"} or {@code "PT1M"}, from 1 second
     * to 1 day; placeholders resolve. It is also about how long the work stays undone after the leader crashed.
     * Empty (the default) means {@code locktable.lease-duration}. Methods sharing a name must agree on it.
     *
     * @return the lease duration, or empty for the property's
     */
    String leaseDuration() default "";
}
