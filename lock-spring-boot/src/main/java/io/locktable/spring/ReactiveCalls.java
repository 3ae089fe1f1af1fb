package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.LeaseThreadLocalAccessor;
import io.locktable.spring.DeferredCalls.Held;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The Reactor side of {@link DeferredCalls}, loaded only with Reactor on the class path. For each subscription: asks
 * for the hold without blocking the subscribing thread (a Reactor {@code parallel} one must not block), then calls
 * the method and subscribes to its publisher with the lease bound (on the thread that answered the acquire), and
 * ends the hold, on {@code boundedElastic} as a release blocks, before the completion, error or cancel goes on. The
 * lease is also in the Reactor context under {@link LeaseThreadLocalAccessor#KEY}, for Reactor's automatic context
 * propagation (which a suspend function needs even for its first line: Spring starts its coroutine after the
 * subscription returned). A lost lease or an ended term cancels the method's publisher and completes the
 * subscription; a skipped call completes empty; a subscription cancelled during the acquire gives it up.
 */
final class ReactiveCalls {

    private ReactiveCalls() {}

    /** A {@code Mono} (or else a {@code Flux}) that holds while the method's publisher runs. */
    static Publisher<?> hold(
            boolean mono, Supplier<CompletableFuture<@Nullable Held>> open, Callable<@Nullable Object> work) {
        if (mono) {
            return Mono.defer(() -> Mono.usingWhen(
                    resource(open.get()),
                    held -> Mono.fromDirect(bound(held, work)),
                    held -> end(held, null),
                    (held, error) -> end(held, error),
                    held -> end(held, cancelled())));
        }
        return Flux.defer(() -> Flux.usingWhen(
                resource(open.get()),
                held -> bound(held, work),
                held -> end(held, null),
                (held, error) -> end(held, error),
                held -> end(held, cancelled())));
    }

    private static CancellationException cancelled() {
        return new CancellationException("cancelled by its subscriber");
    }

    /**
     * One subscription's hold, for {@code usingWhen}, which ends it once handed over. A cancel that comes first cancels
     * a request under way, or ends a hold taken meanwhile, which Reactor drops as its subscriber is gone (the copy of
     * the request completes empty then, not with an error).
     */
    private static Mono<Held> resource(CompletableFuture<@Nullable Held> requested) {
        AtomicBoolean settled = new AtomicBoolean();
        return Mono.fromFuture(requested.handle((held, failure) -> held), true)
                .filter(held -> settled.compareAndSet(false, true))
                .doOnCancel(() -> {
                    if (settled.compareAndSet(false, true) && !requested.cancel(true)) {
                        requested.thenAccept(held -> {
                            if (held != null) {
                                end(held, cancelled()).subscribe();
                            }
                        });
                    }
                });
    }

    /** The method's publisher, subscribed with the lease bound and in its context, cut short on a loss. */
    private static Flux<Object> bound(Held held, Callable<@Nullable Object> work) {
        Lease lease = held.lease();
        Publisher<Object> subscribedBound = subscriber -> subscribe(lease, work, subscriber);
        return Flux.from(subscribedBound)
                .takeUntilOther(Mono.fromFuture(held.loss, true))
                .contextWrite(context -> context.put(LeaseThreadLocalAccessor.KEY, lease));
    }

    @SuppressWarnings("unchecked")
    private static void subscribe(Lease lease, Callable<@Nullable Object> work, Subscriber<? super Object> subscriber) {
        try (Lease.Binding binding = lease.bindAsCurrent()) {
            Publisher<Object> source;
            try {
                source = (Publisher<Object>) work.call();
            } catch (Exception | Error e) {
                source = Flux.error(e);
            }
            (source == null ? Flux.empty() : source).subscribe(subscriber);
        }
    }

    private static Mono<Void> end(Held held, @Nullable Throwable failure) {
        return Mono.<Void>fromRunnable(() -> held.end(failure)).subscribeOn(Schedulers.boundedElastic());
    }
}
