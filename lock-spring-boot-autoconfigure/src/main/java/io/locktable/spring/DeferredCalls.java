package io.locktable.spring;

import io.locktable.Lease;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.util.ClassUtils;

/**
 * Runs the calls of {@link LeaderOnly} and {@link LockedRun} methods whose work runs after they returned, holding the
 * lock or the leadership's term until that work ends:
 *
 * <ul>
 *   <li>a {@code CompletableFuture} or {@code CompletionStage}: the lock is asked for (or the leadership checked)
 *       when the method is called, and the call returns at once a dependent future; the method itself is called once
 *       the lock is taken, and the lock held until the stage it returned completes; the future is cancelled when the
 *       lease is lost or the term ends; a skipped call returns a future completed with null;
 *   <li>a Reactor {@code Mono}, {@code Flux} or {@code Publisher}, and a Kotlin {@code suspend} function (which
 *       Spring's proxy hands to its interceptors as a {@code Mono}): the lock is asked for when the returned
 *       publisher is subscribed, the method itself is called once it is taken, and the lock held until the
 *       publisher ends; see {@link ReactiveCalls}. A skipped subscription completes empty.
 * </ul>
 *
 * No thread waits for the lock: it is asked for with lock-core's {@code tryAcquireAsync}, whose answer comes on the
 * JDK's default asynchronous executor.
 *
 * Reactor is optional: its types are told by their names, and {@link ReactiveCalls}, which uses it, is loaded only
 * for a call of a reactive shape, which startup lets through only when Reactor is on the class path.
 */
final class DeferredCalls {

    /** What a method returns, as far as the hold goes. */
    enum Shape {
        /** A {@code CompletableFuture} or a {@code CompletionStage}. */
        STAGE,
        /** A {@code Mono}, or a Kotlin suspend function. */
        MONO,
        /** A {@code Flux} or a {@code Publisher}. */
        FLUX
    }

    private static final Logger log = LoggerFactory.getLogger(DeferredCalls.class);

    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    private final Supplier<@Nullable LeaderRunner> runner;
    private final Supplier<@Nullable LockedRuns> runs;
    private final TermEnds termEnds = new TermEnds();

    DeferredCalls(Supplier<@Nullable LeaderRunner> runner, Supplier<@Nullable LockedRuns> runs) {
        this.runner = runner;
        this.runs = runs;
    }

    /**
     * The shape of a method whose work the hold can follow, told by the names of its types; null for a method that
     * returns a value (its work is done when it returns), or hands its work over in a way this class cannot follow
     * (a bare {@code Future}, another reactive library). {@link AnnotatedMethods} refuses at startup a method of a
     * shape whose library is missing ({@link #missingLibrary}), so a call of such a shape finds it present.
     */
    static @Nullable Shape shape(Method method) {
        if (isSuspend(method)) {
            return Shape.MONO;
        }
        Class<?> type = method.getReturnType();
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return Shape.STAGE;
        }
        return switch (type.getName()) {
            case "reactor.core.publisher.Mono" -> Shape.MONO;
            case "reactor.core.publisher.Flux", "org.reactivestreams.Publisher" -> Shape.FLUX;
            default -> null;
        };
    }

    /**
     * The library a method of a reactive shape needs and the class loader lacks, or null: Reactor, and for a suspend
     * function the coroutines' Reactor bridge, which Spring's proxies call it through.
     */
    static @Nullable String missingLibrary(Method method, @Nullable ClassLoader loader) {
        Shape shape = shape(method);
        if (shape == null || shape == Shape.STAGE) {
            return null;
        }
        if (!ClassUtils.isPresent("reactor.core.publisher.Flux", loader)
                || !ClassUtils.isPresent("reactor.core.publisher.Mono", loader)) {
            return "Reactor (io.projectreactor:reactor-core)";
        }
        if (isSuspend(method) && !ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", loader)) {
            return "the coroutines' Reactor bridge (org.jetbrains.kotlinx:kotlinx-coroutines-reactor)";
        }
        return null;
    }

    private static boolean isSuspend(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        return parameters.length > 0
                && parameters[parameters.length - 1].getName().equals(CONTINUATION);
    }

    /** Runs or defers a call of a method of the given shape. */
    @Nullable
    Object call(AnnotatedMethods.Declared declared, Shape shape, MethodInvocation invocation) {
        if (shape == Shape.STAGE) {
            return stage(open(declared, invocation), () -> LockAnnotationInterceptor.proceed(invocation));
        }
        if (!(invocation instanceof ProxyMethodInvocation proxied)) {
            throw new IllegalStateException("A reactive " + declared.kind().label + " call needs a Spring AOP proxy");
        }
        // Each subscription calls the method anew, through the interceptors after this one, under its own hold.
        return ReactiveCalls.hold(
                shape == Shape.MONO,
                () -> open(declared, invocation),
                () -> LockAnnotationInterceptor.proceed(proxied.invocableClone()));
    }

    /**
     * Takes the lock, or enters the leadership's gate, for one run of the work, without waiting: a future of the
     * hold, of null when the call is skipped (counted and told as a blocking call's skip is). A lock's future
     * completes when its acquire is answered; a leadership's at once.
     */
    private CompletableFuture<@Nullable Held> open(AnnotatedMethods.Declared declared, MethodInvocation invocation) {
        Method method = invocation.getMethod();
        if (declared.kind() == AnnotatedMethods.Kind.LOCKED_RUN) {
            LockedRuns current = runs.get();
            if (current == null) {
                log.debug("Skipped {}: the context has no single lock table", method);
                return CompletableFuture.completedFuture(null);
            }
            String name = declared.lockName(invocation.getThis(), invocation.getArguments());
            return current.hold(declared, name, method);
        }
        LeaderRunner current = runner.get();
        if (current == null) {
            log.debug("Skipped {}: the context has no single lock table", method);
            return CompletableFuture.completedFuture(null);
        }
        LeadershipGate gate = current.register(declared.name(), declared.leaseDuration());
        Optional<Lease> lease = gate.admit();
        if (lease.isEmpty()) {
            log.debug("Skipped {}: this instance does not lead '{}'", declared.method(), declared.name());
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.completedFuture(new Term(gate, lease.get(), termEnds));
    }

    /**
     * Calls the method once the hold is taken, with the lease bound, and holds until the stage it returned completes.
     * The caller gets at once a dependent stage, which completes after the hold ended: with what the method's stage
     * completed with, with what the method threw, or with null when the call was skipped (or the method returned
     * null). The method runs on the thread that took the hold: the caller's for a leadership, the one that completed
     * the acquire for a lock. Cancelling the caller's stage gives up an acquire still under way (the method is then
     * never called, and a lease won meanwhile released), or cancels the method's future.
     */
    private static CompletableFuture<@Nullable Object> stage(
            CompletableFuture<@Nullable Held> opening, Callable<@Nullable Object> work) {
        CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                opening.cancel(true); // nothing if the hold was taken already
            }
        });
        opening.whenComplete((held, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure); // cancelled by the caller's cancel, which it completes already
            } else if (held == null) {
                result.complete(null);
            } else if (result.isDone()) {
                held.end(new CancellationException("cancelled by its caller"));
            } else {
                follow(held, work, result);
            }
        });
        return result;
    }

    @SuppressWarnings("unchecked")
    private static void follow(Held held, Callable<@Nullable Object> work, CompletableFuture<@Nullable Object> result) {
        Object returned;
        try {
            returned = held.lease().callAsCurrent(work);
        } catch (Exception | Error e) {
            held.end(e);
            result.completeExceptionally(e);
            return;
        }
        if (returned == null) {
            held.end(null);
            result.complete(null);
            return;
        }
        CompletionStage<Object> source = (CompletionStage<Object>) returned;
        if (source instanceof Future<?> future) {
            held.onLoss(() -> future.cancel(true));
            result.whenComplete((value, failure) -> {
                if (result.isCancelled()) {
                    future.cancel(true);
                }
            });
        }
        source.whenComplete((value, failure) -> {
            held.end(failure);
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        });
    }

    /** A {@code @LeaderOnly} call in its gate, for as long as its work runs: the term's lease is its lease. */
    private static final class Term implements Held {
        private final LeadershipGate gate;
        private final Lease lease;
        private final TermEnds termEnds;
        private volatile @Nullable Runnable cancel;

        Term(LeadershipGate gate, Lease lease, TermEnds termEnds) {
            this.gate = gate;
            this.lease = lease;
            this.termEnds = termEnds;
        }

        @Override
        public Lease lease() {
            return lease;
        }

        @Override
        public void onLoss(Runnable action) {
            cancel = action;
            termEnds.add(lease, action);
        }

        @Override
        public void end(@Nullable Throwable failure) {
            Runnable action = cancel;
            if (action != null) {
                termEnds.remove(lease, action);
            }
            gate.leave();
        }
    }

    /**
     * The cancellations of the calls in flight under each term, run when the term ends (lost, stepped down,
     * stopped). One hook on each term's end, not one per call: a term may last for days of calls.
     */
    private static final class TermEnds {
        private final Map<Lease, Set<Runnable>> cancels = new ConcurrentHashMap<>();

        void add(Lease term, Runnable cancel) {
            Set<Runnable> fresh = ConcurrentHashMap.newKeySet();
            Set<Runnable> inFlight = cancels.putIfAbsent(term, fresh);
            if (inFlight == null) {
                inFlight = fresh;
                term.whenEnded().thenRun(() -> ended(term)); // outside the map's update: it may run at once
            }
            inFlight.add(cancel);
            if (term.end().isPresent()) {
                cancel.run(); // ended meanwhile, perhaps after its hook ran; a cancellation runs twice harmlessly
            }
        }

        /** Forgets a call's cancellation when the call ended, so the term does not keep every call it ran. */
        void remove(Lease term, Runnable cancel) {
            Set<Runnable> inFlight = cancels.get(term);
            if (inFlight != null) {
                inFlight.remove(cancel);
            }
        }

        private void ended(Lease term) {
            Set<Runnable> inFlight = cancels.remove(term);
            if (inFlight != null) {
                inFlight.forEach(Runnable::run);
            }
        }
    }
}
