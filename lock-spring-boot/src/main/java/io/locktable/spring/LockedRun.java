package io.locktable.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs each call of a method under a lock of its own: the call takes the lock of its name if it is free, runs, and
 * releases it; if another instance (or call) holds it, the call is skipped. It is ShedLock's {@code @SchedulerLock}
 * without its guesses: the lease renews itself while the body runs, however long it takes.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 * * * *")
 * @LockedRun(name = "hourly-report", minHold = "1m")
 * public void report() {
 *     Lease lease = Lease.current().orElseThrow(); // this run's lease, for fenced writes
 * }
 * }</pre>
 *
 * <p>A call runs on the caller's thread with the run's lease bound as {@link io.locktable.Lease#current()}, released
 * when the body returns or throws unless {@link #minHold()} keeps it longer. A skipped call (the lock is taken, or the
 * acquire failed) returns {@code null}, or an empty {@code Optional}. The lock is not reentrant. Unlike {@link
 * LeaderOnly}'s, consecutive runs may happen on different instances.
 *
 * <p><b>A lock per argument.</b> {@code #{...}} parts of the name are SpEL evaluated at each call: {@code #region}
 * by parameter name (kept by {@code javac -parameters}), {@code #p0} or {@code #a0} by position, {@code #root.target}
 * the bean, {@code #root.args} the arguments. One that cannot be parsed fails startup; one that fails or gives {@code
 * null} or an empty text, or a name too long for a lock, makes the call throw an {@link IllegalArgumentException}
 * without running. Meters tag such runs with the declared name; {@code /actuator/locks} and the events tell the
 * evaluated one.
 *
 * <pre>{@code
 * @LockedRun(name = "report-#{#region}", minHold = "1m")
 * public void report(String region) { ... } // report("eu") and report("us") run together; two report("eu") do not
 * }</pre>
 *
 * <p>A method returning a {@code CompletableFuture}, a {@code CompletionStage} or (with Reactor) a {@code Mono},
 * {@code Flux} or {@code Publisher}, or a Kotlin suspend function, holds the lock until its work ends (not before
 * {@code minHold}), and the work is cancelled when the lease is lost. No thread waits for the lock: the method is
 * called once it is taken, on the thread that completed the acquire; a future method's call returns a dependent
 * future at once. Cancelled before then, the method is never called and the lock left free. A skipped call returns
 * a future of {@code null} or an empty publisher.
 *
 * <p>Refused at startup as for {@link LeaderOnly}, and so is a method that also carries {@code @LeaderOnly}. It may
 * be a meta-annotation of your own, with {@link AliasFor} for its attributes.
 *
 * <p><b>A lost lease</b> (a partition, a pause longer than the lease) ends {@code Lease.current()}, publishes a
 * {@code LOST} {@link LockedRunEvent} and, with {@link #interruptOnLoss()}, interrupts the run's thread. A run that
 * ignores these runs on beside the new holder: its fenced writes are refused and its release never disturbs it.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LockedRun {

    /** {@return the name of the lock} Alias of {@link #name()}. */
    @AliasFor("name")
    String value() default "";

    /**
     * The name of the lock in the table. Placeholders such as {@code ${app.report.lock}} resolve at startup; {@code
     * #{...}} parts at each call (see above). Empty (the default) means {@code <SimpleClassName>.<method>} of the
     * bean's class, such as {@code ReportJob.report}.
     *
     * @return the name of the lock
     */
    @AliasFor("value")
    String name() default "";

    /**
     * How long the run's lease lasts without a renewal, such as {@code "30s"}, from 1 second to 1 day; placeholders
     * resolve. It does not bound the run; it is how long the lock stays taken after its instance crashed. Read as the
     * {@code locktable.*} properties are ({@link LockDurations}): a number without a unit is seconds, and one of 1000 or
     * more fails startup. Empty (the default, or a placeholder that resolves to empty) means {@code
     * locktable.lease-duration}.
     *
     * @return the lease duration, or empty for the property's
     */
    String leaseDuration() default "";

    /**
     * How long a run keeps the lock at least from when it took it, such as {@code "30s"} (ShedLock's {@code
     * lockAtLeastFor}); placeholders resolve. A shorter run's lock is released later from a timer, never making the
     * caller wait, or when the application stops. With a schedule every {@code P}, a {@code minHold} a little below
     * {@code P} runs the job once per period in the cluster. Read like {@link #leaseDuration()}: {@code "4"} is 4
     * seconds. Empty or zero (the default, or a placeholder that resolves to empty): released when the body returns.
     *
     * @return the minimum hold, or empty for none
     */
    String minHold() default "";

    /**
     * Whether the thread of a run whose lease is lost is interrupted, so that work that honours interruption stops at
     * once. The interrupt is cleared when the run ends. False (the default): the run is told only through {@link
     * io.locktable.Lease#current()} and the {@code LOST} {@link LockedRunEvent}.
     *
     * @return true to interrupt the run's thread when its lease is lost
     */
    boolean interruptOnLoss() default false;
}
