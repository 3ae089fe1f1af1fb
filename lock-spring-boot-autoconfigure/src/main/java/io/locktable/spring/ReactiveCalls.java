package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseThreadLocalAccessor;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;

/**
 * The Reactor side of {@link DeferredCalls}, loaded only when Reactor is on the class path: a publisher that, for each
 * subscription, asks for the hold without blocking the subscribing thread (which may be a non-blocking one, such as
 * Reactor's {@code parallel}), defers the subscription to the method's publisher until the hold is taken, then
 * calls the method with the lease bound, and holds until the method's publisher ends. For a lock, the method is
 * called and subscribed on the thread that completed the acquire (the JDK's default asynchronous executor).
 *
 * <ul>
 *   <li>The lease is {@link Lease#current()} on the thread that calls the method and subscribes to its publisher, so
 *       for the work done while subscribing (a {@code Mono.fromCallable} without {@code subscribeOn}); and it is in
 *       the subscription's Reactor context under {@link LeaseThreadLocalAccessor#KEY}, whence Reactor's automatic
 *       context propagation (Micrometer's context-propagation on the class path and {@code
 *       Hooks.enableAutomaticContextPropagation()}) binds it on every thread the chain moves to. A suspend function
 *       needs that propagation even for its first line: Spring runs it in a coroutine of its own, which starts after
 *       the subscription returned (an unconfined coroutine started inside another is queued), and restores the
 *       context's thread locals on each resumption.
 *   <li>The hold ends, and the lock is released (after the run's minimum hold), before the completion, the error or
 *       the cancel goes on; the release runs on Reactor's bounded-elastic scheduler, as it is a blocking request.
 *   <li>When the lease is lost, or the leadership's term ends, the method's publisher is cancelled and the
 *       subscription completes.
 *   <li>A skipped call (busy lock, not the leader, stopping) completes empty.
 *   <li>A subscription cancelled while the lock is asked for gives up the acquire: the method is not called, and a
 *       lease won all the same is released.
 * </ul>
 */
final class ReactiveCalls {

    private ReactiveCalls() {}

    /**
     * A publisher of the method's shape that holds while the method's publisher runs.
     *
     * @param mono whether the method returns a {@code Mono} (or is a suspend function), else a {@code Flux} or a
     *     {@code Publisher}
     * @param open asks for the hold: a future of it, of null when the call is skipped
     * @param work calls the method and returns its publisher
     */
    static Publisher<?> hold(
            boolean mono, Supplier<CompletableFuture<@Nullable Held>> open, Callable<@Nullable Object> work) {
        if (mono) {
            return Mono.defer(() -> {
                Opening opening = new Opening(open.get());
                return Mono.usingWhen(
                        opening.resource(),
                        held -> Mono.fromDirect(bound(held, work)),
                        held -> end(held, null),
                        (held, error) -> end(held, error),
                        held -> end(held, cancelled()));
            });
        }
        return Flux.defer(() -> {
            Opening opening = new Opening(open.get());
            return Flux.usingWhen(
                    opening.resource(),
                    held -> bound(held, work),
                    held -> end(held, null),
                    (held, error) -> end(held, error),
                    held -> end(held, cancelled()));
        });
    }

    private static CancellationException cancelled() {
        return new CancellationException("cancelled by its subscriber");
    }

    /**
     * One subscription's hold, from its request to its hand-over to {@code usingWhen}, which ends it. A subscription
     * cancelled before the hand-over gives the hold up here: a request still under way is cancelled (lock-core
     * releases a lease it wins all the same), and a hold taken meanwhile, which Reactor drops as it completes a
     * cancelled subscription, is ended. The state tells which of the two came first.
     */
    private static final class Opening {
        private static final int WAITING = 0;
        private static final int HANDED_OVER = 1;
        private static final int CANCELLED = 2;

        private final CompletableFuture<@Nullable Held> requested;
        private final AtomicInteger state = new AtomicInteger(WAITING);

        Opening(CompletableFuture<@Nullable Held> requested) {
            this.requested = requested;
        }

        /**
         * The hold, for {@code usingWhen}: empty when the call is skipped, or cancelled before the hand-over (then
         * {@link #cancel} ends it). Once handed over, {@code usingWhen} alone ends it.
         */
        Mono<Held> resource() {
            // A copy that completes empty, not with an error, once cancelled: its subscriber is gone by then. Its
            // cancel is ours, below.
            return Mono.fromFuture(requested.handle((held, failure) -> held), true)
                    .filter(held -> state.compareAndSet(WAITING, HANDED_OVER))
                    .doOnCancel(this::cancel);
        }

        private void cancel() {
            if (!state.compareAndSet(WAITING, CANCELLED) || requested.cancel(true)) {
                return; // handed over (usingWhen ends it), or given up before it was taken
            }
            Held held = requested.isCompletedExceptionally() ? null : requested.getNow(null);
            if (held != null) {
                end(held, cancelled()).subscribe();
            }
        }
    }

    /**
     * The method's publisher, called and subscribed with the lease bound, the lease in its context, and cut short
     * when the hold is lost.
     */
    private static Flux<Object> bound(Held held, Callable<@Nullable Object> work) {
        Lease lease = held.lease();
        CompletableFuture<@Nullable Void> lost = new CompletableFuture<>();
        held.onLoss(() -> lost.complete(null));
        Publisher<Object> subscribedBound = subscriber -> subscribe(lease, work, subscriber);
        return Flux.from(subscribedBound)
                .takeUntilOther(Mono.fromFuture(lost))
                .contextWrite(context -> context.put(LeaseThreadLocalAccessor.KEY, lease));
    }

    @SuppressWarnings("unchecked")
    private static void subscribe(Lease lease, Callable<@Nullable Object> work, Subscriber<? super Object> subscriber) {
        try (Lease.Binding binding = lease.bindAsCurrent()) {
            Publisher<Object> source;
            try {
                source = (Publisher<Object>) work.call();
            } catch (Exception | Error e) {
                Operators.error(subscriber, e);
                return;
            }
            (source == null ? Flux.empty() : source).subscribe(subscriber);
        }
    }

    private static Mono<Void> end(Held held, @Nullable Throwable failure) {
        return Mono.<Void>fromRunnable(() -> held.end(failure)).subscribeOn(Schedulers.boundedElastic());
    }
}
