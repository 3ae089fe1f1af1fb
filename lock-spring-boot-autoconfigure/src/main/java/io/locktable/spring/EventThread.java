package io.locktable.spring;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the application events of one component (the leader runner, the locked runs), in order, on a thread of
 * their own: listeners are user code and must never run on (or block) a thread that holds an election, renews or
 * ends leases, or runs a job.
 */
final class EventThread {

    private static final Logger log = LoggerFactory.getLogger(EventThread.class);

    private final Object source;
    private final String threadName;
    private volatile @Nullable ApplicationEventPublisher publisher;
    private @Nullable ExecutorService executor; // guarded by this

    EventThread(Object source, String threadName) {
        this.source = source;
        this.threadName = threadName;
    }

    /** The source of the events: the component that publishes them. */
    Object source() {
        return source;
    }

    void publisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    synchronized void start() {
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(task -> {
                Thread thread = new Thread(task, threadName);
                thread.setDaemon(true);
                return thread;
            });
        }
    }

    /** Delivers what was published already, waiting at most {@code wait}, and stops the thread. */
    void stop(Duration wait) {
        ExecutorService stopping;
        synchronized (this) {
            stopping = executor;
            executor = null;
        }
        if (stopping == null) {
            return;
        }
        stopping.shutdown();
        try {
            if (!stopping.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn(
                        "Listeners of the events on {} did not finish within {}; later events are dropped",
                        threadName,
                        wait);
                stopping.shutdownNow();
            }
        } catch (InterruptedException e) {
            stopping.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Queues an event for delivery after those published before it; dropped when the thread is stopped. */
    void publish(ApplicationEvent event) {
        ApplicationEventPublisher target = publisher;
        ExecutorService running;
        synchronized (this) {
            running = executor;
        }
        if (target == null || running == null) {
            log.debug("Not published (no publisher or stopped): {}", event);
            return;
        }
        try {
            running.execute(() -> deliver(target, event));
        } catch (RejectedExecutionException e) {
            log.debug("Not published (stopped): {}", event);
        }
    }

    private static void deliver(ApplicationEventPublisher target, ApplicationEvent event) {
        try {
            target.publishEvent(event);
        } catch (RuntimeException e) {
            log.warn("A listener of {} failed", event, e);
        }
    }
}
