package io.locktable.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs each call of a method under a lock of its own: the call takes the lock of its name with {@link
 * io.locktable.LockTable#tryAcquire}; if it gets it, the body runs, and the lock is released when it returns; if
 * another instance (or another call) holds it, the call is skipped. It is ShedLock's {@code @SchedulerLock} without
 * its guesses: the lease renews itself while the body runs, however long it takes.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 * * * *")
 * @LockedRun(name = "hourly-report", minHold = "1m")
 * public void report() {
 *     Lease lease = Lease.current().orElseThrow(); // this run's lease, for fenced writes
 *     ...
 * }
 * }</pre>
 *
 * <p><b>A call.</b> It runs on the caller's thread (the {@code @Scheduled} thread, a request thread...) with the
 * run's lease bound as {@link io.locktable.Lease#current()}. The lease renews itself every third of {@link
 * #leaseDuration()} while the body runs and is released when it returns or throws, unless {@link #minHold()} keeps
 * it longer. A call that does not get the lock is skipped: the body does not run and the call returns {@code null},
 * or {@link java.util.Optional#empty()} for a method declared to return {@code Optional}. So is a call whose acquire
 * fails (DynamoDB cannot be reached: logged as a warning, the first of a row only). The lock is not reentrant: a run
 * that calls another {@code @LockedRun} method of the same name skips it.
 *
 * <p><b>A lock per argument.</b> {@code #{...}} parts of the name are SpEL expressions over the method's arguments,
 * evaluated at each call, so that calls with different arguments run at the same time under different locks, and
 * calls with the same one contend:
 *
 * <pre>{@code
 * @LockedRun(name = "report-#{#region}", minHold = "1m")
 * public void report(String region) { ... } // report("eu") and report("us") run together; two report("eu") do not
 * }</pre>
 *
 * An argument is {@code #region} by its parameter name, which the build keeps with {@code javac -parameters} ({@code
 * spring-boot-starter-parent} and Spring Boot's Gradle plugin set it); without it, {@code #p0} or {@code #a0} by
 * position still work. {@code #root.target} is the bean, {@code #root.args} the arguments; bean references ({@code
 * @bean}) are not resolved. The expressions are parsed at startup (one that cannot
 * be parsed fails startup with the method and the expression) and evaluated on the caller's thread before the lock
 * is asked for. If a part fails, gives {@code null} or an empty text, or the whole name cannot be a lock's (longer
 * than DynamoDB's key allows), the call throws an {@link IllegalArgumentException} naming the method, the name and
 * the value, and its body does not run: a bug in the expression is not taken for another instance holding the lock
 * (a {@code @Scheduled} job's scheduler logs the exception at each tick, and the next tick tries again). The
 * meters tag such a run with the name as declared, {@code report-#{#region}}, never with each evaluated name, so
 * that their series stay as few as the methods; {@code /actuator/locks} and the {@link LockedRunEvent}s tell the
 * evaluated names. {@link LeaderOnly} names have no expressions: a leadership is fixed at startup.
 *
 * <p><b>Against {@link LeaderOnly}.</b> {@code @LeaderOnly} keeps one leader per name for as long as it runs, and
 * every call on the leader runs; {@code @LockedRun} takes a lock per call, so consecutive runs may happen on
 * different instances, and an instance that was busy with the previous run does not hold anything between runs.
 *
 * <p><b>Same rules as {@link LeaderOnly}.</b> A method returning a primitive other than {@code void} cannot be
 * skipped and fails startup; so do a private, static or final method, and a method that also carries {@code
 * @LeaderOnly}. A method whose work runs after it returned, one returning a {@code CompletableFuture}, a {@code
 * CompletionStage}, or (with Reactor) a {@code Mono}, {@code Flux} or {@code Publisher}, or a Kotlin suspend function,
 * holds the lock until its work ends: asked for when called (a future) or subscribed (a publisher), released when the
 * work completes, fails or is cancelled (not before {@link #minHold()}), and the work cancelled when the lease is
 * lost; a skipped call returns a future of {@code null} or an empty publisher. Other such methods (a bare {@code
 * Future}, other reactive types) fail startup.
 *
 * <p><b>No thread waits for the lock</b> of such a method: it is asked for with {@link
 * io.locktable.LockTable#tryAcquireAsync}, and the method is called once it is taken, with the lease bound, on the
 * thread that completed the acquire (the JDK's default asynchronous executor), so a subscription on a Reactor thread
 * that must not block (such as {@code parallel}) never blocks. A publisher's subscription to the method's publisher
 * is deferred until then. A {@code CompletableFuture} or {@code CompletionStage} method's call returns at once a
 * dependent future: it completes (after the release) with what the method's future completed with, or with what the
 * method threw, or with {@code null} when the call was skipped; cancelling it cancels the method's future, or, before
 * the method was called, gives up the acquire. A subscription cancelled (or a future cancelled) while the lock is
 * asked for never calls the method and leaves the lock free: a lease won all the same is released at once. The call
 * counts as in flight for the application's stop from then on. It may be a meta-annotation of an annotation of your own, whose attributes stand
 * for its own with {@link AliasFor @AliasFor}. It works on public, protected and package-private methods of beans called through the bean's proxy;
 * a call from the bean to itself bypasses the proxy and is not locked.
 *
 * <p><b>A lost lease.</b> Holding the lock when the run starts is no promise about its end: a run can lose its lease
 * (a network partition, a pause longer than the lease). The run is told: {@link io.locktable.Lease#current()} ends
 * ({@code isHeld()} false), a {@code LOST} {@link LockedRunEvent} is published, and with {@link #interruptOnLoss()} its thread
 * is interrupted. A run that ignores all of these runs on to its end while another instance may take the lock and
 * run the same job: its fenced writes ({@code Lease.heldCheck()}, {@code Lease.transactWrite}) are refused from then
 * on, its end is recorded with outcome {@code lost}, and its release does nothing (it never disturbs the new holder).
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LockedRun {

    /**
     * Alias of {@link #name()}.
     *
     * @return the name of the lock
     */
    @AliasFor("name")
    String value() default "";

    /**
     * The name of the lock in the table. Placeholders such as {@code ${app.report.lock}} resolve against the
     * environment at startup; then {@code #{...}} parts, such as {@code report-#{#region}}, are SpEL over the
     * arguments, evaluated at each call (see <em>A lock per argument</em> above). Empty (the default) means {@code
     * <SimpleClassName>.<method>} of the bean's class, such as {@code ReportJob.report}: every instance of the
     * application runs the same class, so they contend for the same lock.
     *
     * @return the name of the lock
     */
    @AliasFor("value")
    String name() default "";

    /**
     * How long the run's lease lasts without a renewal, such as {@code "30s"} or {@code "PT1M"}, from 1 second to 1
     * day; placeholders resolve. It does not bound the run: the lease renews itself while the body runs. It is how
     * long the lock stays taken after the instance running it crashed. Empty (the default) means {@code
     * locktable.lease-duration}.
     *
     * @return the lease duration, or empty for the property's
     */
    String leaseDuration() default "";

    /**
     * How long a run keeps the lock at least, counted from when it took it, such as {@code "30s"}; placeholders
     * resolve. A run that ends sooner keeps the lock (renewed) until then, and releases it from a timer, never by
     * making the caller wait; a run that ends later releases it when it ends. It keeps the other instances, whose
     * schedules tick at other moments, from running the same job again right after a short run: with a schedule every
     * {@code P}, a {@code minHold} a little below {@code P} runs the job once per period in the cluster. This is
     * ShedLock's {@code lockAtLeastFor}. Empty or zero (the default): the lock is released when the body returns. When
     * the application stops, a lock still held for its {@code minHold} is released.
     *
     * @return the minimum hold, or empty for none
     */
    String minHold() default "";

    /**
     * Whether the thread of a run whose lease is lost (another holder took it, or it ran out) is interrupted, so
     * that work that honours interruption (blocking I/O, {@code Thread.sleep}, {@code BlockingQueue}...) stops at
     * once. The interrupt is cleared when the run ends, so it never reaches the caller's next task. False (the
     * default): the run is told only through {@link io.locktable.Lease#current()} and the {@code LOST} {@link LockedRunEvent}.
     *
     * @return true to interrupt the run's thread when its lease is lost
     */
    boolean interruptOnLoss() default false;
}
