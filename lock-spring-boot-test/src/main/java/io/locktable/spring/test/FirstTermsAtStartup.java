package io.locktable.spring.test;

import io.locktable.spring.LeaderRunner;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * In the in-memory test mode, holds the context's start until this instance leads every name of the {@link
 * LeaderRunner}, at most {@link #MAX_WAIT}. On an in-memory table of its own the instance wins each election at
 * once, but on the runner's election threads: without this wait, a test that calls a {@code @LeaderOnly} method
 * right after the context started, or the first {@code @Scheduled} tick, could be skipped while the election thread
 * has not run yet. It starts in the phase after the runner's and before the schedulers', which start their tasks
 * once the context has refreshed.
 */
final class FirstTermsAtStartup implements SmartLifecycle {

    /** How long the start waits at most; the in-memory elections take microseconds. */
    static final Duration MAX_WAIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(FirstTermsAtStartup.class);

    private final ObjectProvider<LeaderRunner> runner;
    private volatile boolean running;

    FirstTermsAtStartup(ObjectProvider<LeaderRunner> runner) {
        this.runner = runner;
    }

    @Override
    public void start() {
        running = true;
        LeaderRunner leaders = runner.getIfUnique();
        if (leaders == null || !leaders.isRunning()) {
            return;
        }
        long deadline = System.nanoTime() + MAX_WAIT.toNanos();
        List<String> waiting = notLed(leaders);
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            waiting = notLed(leaders);
        }
        if (!waiting.isEmpty()) {
            log.warn(
                    "This instance does not lead {} after {}: their @LeaderOnly calls are skipped until it does"
                            + " (another LockTable than the in-memory one? see LeaderRunner.status)",
                    waiting,
                    MAX_WAIT);
        }
    }

    private static List<String> notLed(LeaderRunner leaders) {
        return leaders.names().stream().filter(name -> !leaders.isLeader(name)).toList();
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The phase after the runner's: it starts once the runner contends. */
    @Override
    public int getPhase() {
        return LeaderRunner.PHASE + 1;
    }

    @Override
    public String toString() {
        @Nullable LeaderRunner leaders = runner.getIfUnique();
        return "FirstTermsAtStartup[" + (leaders == null ? "no leader runner" : leaders.names()) + "]";
    }
}
