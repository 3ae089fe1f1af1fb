package io.locktable.spring;

import io.locktable.Lease;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the leadership events of one runner, in order, on a thread of their own: listeners are user code and
 * must never run on (or block) the thread that holds an election.
 */
final class LeadershipEvents {

    private static final Logger log = LoggerFactory.getLogger(LeaderRunner.class);

    private final Object source;
    private volatile ApplicationEventPublisher publisher;
    private ExecutorService executor; // guarded by this

    LeadershipEvents(Object source) {
        this.source = source;
    }

    void publisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    synchronized void start() {
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(task -> {
                Thread thread = new Thread(task, "locktable-leadership-events");
                thread.setDaemon(true);
                return thread;
            });
        }
    }

    void granted(String name, Lease lease) {
        publish(new LeadershipGrantedEvent(source, name, lease));
    }

    void revoked(String name) {
        publish(new LeadershipRevokedEvent(source, name));
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
                log.warn("Leadership event listeners did not finish within {}; later events are dropped", wait);
                stopping.shutdownNow();
            }
        } catch (InterruptedException e) {
            stopping.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void publish(ApplicationEvent event) {
        ApplicationEventPublisher target = publisher;
        ExecutorService running;
        synchronized (this) {
            running = executor;
        }
        if (target == null || running == null) {
            log.debug("Not published (no publisher or runner stopped): {}", event);
            return;
        }
        try {
            running.execute(() -> deliver(target, event));
        } catch (RejectedExecutionException e) {
            log.debug("Not published (runner stopped): {}", event);
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
