package io.locktable.spring;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the application events of one component (the leader runner, the locked runs) in order, on the
 * starter's one event thread, {@code locktable-events}, which every component shares: listeners are user code and
 * must never run on (or block) a thread that holds an election, renews or ends leases, or runs a job. The thread is
 * created at the first event and goes away when idle.
 */
final class EventThread {

    static final String THREAD_NAME = "locktable-events";

    /** How long a component's stop waits for its events to be delivered. */
    static final Duration FLUSH = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(EventThread.class);
    private static @Nullable ThreadPoolExecutor executor; // guarded by the class: never held over a wait

    private final Object source;
    private volatile @Nullable ApplicationEventPublisher publisher;
    private volatile boolean open;
    /** Set when a stop gave up waiting for this component's listeners: what it queued is not delivered. */
    private volatile boolean dropping;

    EventThread(Object source) {
        this.source = source;
    }

    /** The source of the events: the component that publishes them. */
    Object source() {
        return source;
    }

    void publisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** Accepts events from now on. */
    void start() {
        dropping = false;
        open = true;
    }

    /** Accepts no more events, and waits at most {@code wait} for those published already: {@link #stopAsync}. */
    void stop(Duration wait) {
        stopAsync(wait).join();
    }

    /**
     * Accepts no more events; completes once those published already were delivered, or after {@code wait}: then the
     * rest of this component's events are dropped and the thread is replaced (the stuck one interrupted), so the
     * other components' events go on.
     */
    CompletableFuture<Void> stopAsync(Duration wait) {
        if (!open) {
            return CompletableFuture.completedFuture(null);
        }
        open = false;
        CompletableFuture<Boolean> delivered = new CompletableFuture<>();
        submit(() -> delivered.complete(true));
        return delivered
                .completeOnTimeout(false, wait.toNanos(), TimeUnit.NANOSECONDS)
                .thenAccept(done -> {
                    if (!done) {
                        dropping = true;
                        log.warn(
                                "Listeners of the events of {} did not finish within {}; later events are dropped",
                                source,
                                wait);
                        replaceThread();
                    }
                });
    }

    /** Queues an event for delivery after those published before it; dropped when stopped. */
    void publish(ApplicationEvent event) {
        ApplicationEventPublisher target = publisher;
        if (target == null || !open) {
            log.debug("Not published (no publisher or stopped): {}", event);
            return;
        }
        submit(() -> deliver(target, event));
    }

    private void deliver(ApplicationEventPublisher target, ApplicationEvent event) {
        if (dropping) {
            return;
        }
        try {
            target.publishEvent(event);
        } catch (RuntimeException e) {
            log.warn("A listener of {} failed", event, e);
        }
    }

    private static synchronized void submit(Runnable task) {
        if (executor == null) {
            executor = newExecutor();
        }
        executor.execute(task);
    }

    /** A new thread takes over the queue of a stuck one, in order; the stuck one is interrupted. */
    private static synchronized void replaceThread() {
        ThreadPoolExecutor stuck = executor;
        executor = newExecutor();
        if (stuck != null) {
            stuck.shutdownNow().forEach(executor::execute);
        }
    }

    private static ThreadPoolExecutor newExecutor() {
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
                    Thread thread = new Thread(task, THREAD_NAME);
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
