package io.locktable.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs a method only on the instance of the cluster that leads a name; on the others the call is skipped.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @LeaderOnly("order-sweeper")
 * public void sweep() {
 *     Lease lease = Lease.current().orElseThrow(); // the leader's lease, for fenced writes
 * }
 * }</pre>
 *
 * <p>The {@link LeaderRunner} keeps one leadership per name. While this instance leads, a call runs on the caller's
 * thread with the lease bound as {@link io.locktable.Lease#current()}; otherwise it returns {@code null} (an empty
 * {@code Optional} for an {@code Optional} method) without running. Leading when a call starts is no promise about
 * its end: fence the writes that must not outlive the lease ({@code heldCheck()}, {@code fencingToken()}). A method
 * returning a {@code CompletableFuture}, a {@code CompletionStage} or (with Reactor) a {@code Mono}, {@code Flux} or
 * {@code Publisher}, or a Kotlin suspend function, is held until its work ends and cancelled when the term ends; a
 * skipped call returns a future of {@code null} or an empty publisher.
 *
 * <p>Startup fails, naming the method and what to change, for a primitive return type other than {@code void}, other
 * deferred types (a bare {@code Future}), and a private, static or final method (the proxy, interface-based or
 * class-based as {@code spring.aop.proxy-target-class} says, cannot intercept it). A call from the bean to itself
 * bypasses the proxy. With {@code locktable.leader.enabled=false} this instance never leads. It may be a
 * meta-annotation of your own, with {@link AliasFor} for its attributes.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /** {@return the name of the leadership} Alias of {@link #name()}. */
    @AliasFor("name")
    String value() default "";

    /**
     * The name of the leadership, the name of its lock in the table; placeholders such as {@code ${app.sweeper.lock}}
     * resolve. Empty (the default) means {@code spring.application.name}. It is fixed at startup: a {@code #{...}}
     * expression, as {@link LockedRun} has, fails startup.
     *
     * @return the name of the leadership
     */
    @AliasFor("value")
    String name() default "";

    /**
     * How long the leader's lease lasts without a renewal, such as {@code "30s"} or {@code "PT1M"}, from 1 second to
     * 1 day; placeholders resolve. About how long the work stays undone after the leader crashed. Read as the {@code
     * locktable.*} properties are ({@link LockDurations}): a number without a unit is seconds, and one of 1000 or more
     * fails startup asking whether milliseconds or seconds were meant. Empty (the default, or a placeholder that
     * resolves to empty) means {@code locktable.lease-duration}. Methods sharing a name must agree on it.
     *
     * @return the lease duration, or empty for the property's
     */
    String leaseDuration() default "";

    /**
     * Whether a call that runs on the caller's thread is interrupted when the term's lease ends while it runs (lost,
     * run out, a step-down, the runner's stop): the interrupt comes from the path that ends the lease, before any
     * listener or event, and is cleared when the call returns, so it does not reach the scheduler's next task. Off by
     * default, as interrupting code that does not expect it can close its NIO channels. Deferred calls (futures,
     * publishers, suspend functions) are cancelled at the term's end whatever this says.
     *
     * @return true to interrupt a call whose term ended
     */
    boolean interruptOnLoss() default false;
}
