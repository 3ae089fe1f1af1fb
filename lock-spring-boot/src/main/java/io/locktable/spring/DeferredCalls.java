package io.locktable.spring;

import io.locktable.Lease;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
 * lock (asked for with {@code tryAcquireAsync}: no thread waits) or the term until the work ends, and cancelling the
 * work when the lease is lost or the term ends: a {@code CompletableFuture} or {@code CompletionStage} method is
 * called once the hold is taken, its caller getting a dependent future at once; a {@code Mono}, {@code Flux}, {@code
 * Publisher} or suspend function takes its hold when subscribed ({@link ReactiveCalls}, loaded only for those, which
 * startup allows only with Reactor on the class path).
 */
final class DeferredCalls {

    /** What a method returns: a future or stage; a {@code Mono} or a suspend function; a {@code Flux} or publisher. */
    enum Shape {
        STAGE,
        MONO,
        FLUX
    }

    /** What a deferred call holds until its work ends: a {@link LockedRun} call's lock, or a place in a term. */
    abstract static class Held {
        /** Completed when the lease is lost, or the term ends, before {@link #end}: the work is then cancelled. */
        final CompletableFuture<@Nullable Void> loss = new CompletableFuture<>();

        /** The lease the work runs under: the lock's, or the term's. */
        abstract Lease lease();

        /** Ends the hold, once: releases the lock (after its minimum hold) or leaves the gate. May block. */
        abstract void end(@Nullable Throwable failure);
    }

    private static final Logger log = LoggerFactory.getLogger(DeferredCalls.class);

    private final Supplier<@Nullable LeaderRunner> runner;
    private final Supplier<@Nullable LockedRuns> runs;

    DeferredCalls(Supplier<@Nullable LeaderRunner> runner, Supplier<@Nullable LockedRuns> runs) {
        this.runner = runner;
        this.runs = runs;
    }

    /**
     * The shape of a method whose work the hold can follow, told by the names of its types; null for a method whose
     * work is done when it returns, or handed over in a way this class cannot follow (a bare {@code Future}).
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

    /** The library a reactive method needs and the class loader lacks, or null; {@link AnnotatedMethods} refuses it. */
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
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
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

    /** Takes the hold without waiting: a future of it, of null when the call is skipped. */
    private CompletableFuture<@Nullable Held> open(AnnotatedMethods.Declared declared, MethodInvocation invocation) {
        Method method = invocation.getMethod();
        LeaderRunner leaders = null;
        if (declared.kind() == AnnotatedMethods.Kind.LOCKED_RUN) {
            LockedRuns lockedRuns = runs.get();
            if (lockedRuns != null) {
                String name = declared.lockName(invocation.getThis(), invocation.getArguments());
                return lockedRuns.hold(declared, name, method);
            }
        } else {
            leaders = runner.get();
        }
        if (leaders == null) {
            log.debug("Skipped {}: the context has no single lock table", method);
            return CompletableFuture.completedFuture(null);
        }
        LeadershipGate gate = leaders.register(declared.name(), declared.leaseDuration());
        Optional<Lease> lease = gate.admit();
        if (lease.isEmpty()) {
            log.debug("Skipped {}: this instance does not lead '{}'", declared.method(), declared.name());
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.completedFuture(new Term(gate, lease.get()));
    }

    /**
     * Calls the method once the hold is taken, with the lease bound, on the thread that took it, and holds until the
     * stage it returned completes; the caller's stage completes after the hold ended. Cancelling the caller's stage
     * gives up an acquire under way (the method is then never called), or cancels the method's future.
     */
    private static CompletableFuture<@Nullable Object> stage(
            CompletableFuture<@Nullable Held> opening, Callable<@Nullable Object> work) {
        CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                opening.cancel(true); // nothing if the hold was taken already
            }
        });
        opening.thenAccept(
                held -> { // it fails only when cancelled, by the caller's cancel
                    if (held == null) {
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
        CompletionStage<Object> source;
        try {
            source = (CompletionStage<Object>) held.lease().callAsCurrent(work);
        } catch (Exception | Error e) {
            source = CompletableFuture.failedFuture(e);
        }
        if (source == null) {
            source = CompletableFuture.completedFuture(null);
        } else if (source instanceof Future<?> future) {
            held.loss.thenRun(() -> future.cancel(true));
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

    /**
     * A {@code @LeaderOnly} call in its gate for as long as its work runs, under the term's lease, whose end stops
     * the work from the path that ends it.
     */
    private static final class Term extends Held {
        private final LeadershipGate gate;
        private final Lease lease;
        private final Lease.Registration stop;

        Term(LeadershipGate gate, Lease lease) {
            this.gate = gate;
            this.lease = lease;
            this.stop = lease.stopOnEnd(() -> loss.complete(null)); // at once if the term ended meanwhile
        }

        @Override
        Lease lease() {
            return lease;
        }

        @Override
        void end(@Nullable Throwable failure) {
            stop.close();
            gate.leave();
        }
    }
}
