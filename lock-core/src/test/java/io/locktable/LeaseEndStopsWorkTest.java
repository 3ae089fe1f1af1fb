package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lost-signal matrix of issue #34: every entry point of lock-core that runs work under a lease, under each thing
 * that used to hold the stop up (a listener blocked on the event thread, a blocked completion executor, workers busy
 * with requests that hang), in memory and in real time. Each case forces a loss while the obstruction is in place and
 * checks that the work was stopped before the obstruction went away: the stop comes from the path that ends the
 * lease, not through a queue user code can hold. Spring's entry points have theirs in the starter's tests; the bound
 * is measured by {@link LeaseEndLatencyBenchmark}.
 */
class LeaseEndStopsWorkTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final long STOPPED_WITHIN_SECONDS = 10;

    enum EntryPoint {
        RUN_AS_LEADER,
        RUN_AS_LEADER_ASYNC,
        RUN_LOCKED,
        INTERRUPT_ON_END,
        STOP_ON_END
    }

    enum Obstruction {
        BLOCKED_LISTENER,
        BLOCKED_COMPLETION_EXECUTOR,
        BUSY_WORKERS
    }

    static List<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (EntryPoint entry : EntryPoint.values()) {
            for (Obstruction obstruction : Obstruction.values()) {
                cases.add(Arguments.of(entry, obstruction));
            }
        }
        return cases;
    }

    private final LosingStore store = new LosingStore("slow-");
    private final CountDownLatch obstructing = new CountDownLatch(1);
    private final CountDownLatch obstructionInPlace = new CountDownLatch(1);
    private final ExecutorService completions = Executors.newSingleThreadExecutor();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final String name = "work-" + UUID.randomUUID();
    /** Completes when the work under the lease saw its stop: an interrupt or a cancel. */
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    private final CompletableFuture<Lease> started = new CompletableFuture<>();
    private volatile boolean obstructionLifted;

    private LockTable table;

    @AfterEach
    void lift() {
        obstructionLifted = true;
        obstructing.countDown();
        store.releaseSlow();
        callers.shutdownNow();
        completions.shutdownNow();
        if (table != null) {
            table.close();
        }
    }

    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("cases")
    void theWorkIsStoppedBeforeTheObstructionGoesAway(EntryPoint entry, Obstruction obstruction) throws Exception {
        LockTable.Builder builder = LockTable.Builder.over(store, "pk").completionExecutor(completions);
        if (obstruction == Obstruction.BLOCKED_LISTENER) {
            builder.listener(new LockTableListener() {
                @Override
                public void onAcquired(Lease lease, boolean tookOver) {
                    obstructionInPlace.countDown();
                    awaitQuietly(obstructing); // every later event, and whenEnded(), wait behind this
                }
            });
        }
        table = builder.build();

        start(entry);
        Lease lease = started.get(10, TimeUnit.SECONDS);
        obstruct(obstruction);
        store.doom(name); // its next renewal learns that another process holds the lock

        stopped.get(STOPPED_WITHIN_SECONDS, TimeUnit.SECONDS);
        assertThat(obstructionLifted)
                .as("stopped while the obstruction was in place")
                .isFalse();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.end()).isPresent();
    }

    private void obstruct(Obstruction obstruction) throws InterruptedException {
        switch (obstruction) {
            case BLOCKED_LISTENER -> {} // in place since the acquire's event
            case BLOCKED_COMPLETION_EXECUTOR ->
                completions.execute(() -> {
                    obstructionInPlace.countDown();
                    awaitQuietly(obstructing);
                });
            case BUSY_WORKERS -> {
                for (int i = 0; i < 8; i++) { // more than the table's six workers: each hangs until the test ends
                    table.tryAcquireAsync("slow-" + i, LEASE);
                }
                obstructionInPlace.countDown();
            }
        }
        assertThat(obstructionInPlace.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private void start(EntryPoint entry) {
        switch (entry) {
            case RUN_AS_LEADER ->
                callers.execute(() -> {
                    try {
                        table.runAsLeader(name, LEASE, this::block);
                    } catch (Exception e) {
                        // the test's end interrupts the caller
                    }
                });
            case RUN_AS_LEADER_ASYNC ->
                table.runAsLeaderAsync(name, LEASE, lease -> {
                    CompletableFuture<Void> work = new CompletableFuture<>();
                    work.whenComplete((value, error) -> {
                        if (work.isCancelled()) {
                            stopped.complete(null);
                        }
                    });
                    started.complete(lease);
                    return work;
                });
            case RUN_LOCKED ->
                callers.execute(() -> {
                    try {
                        table.runLocked(name, LEASE, Duration.ZERO, () -> {
                            block(Lease.current().orElseThrow());
                            return null;
                        });
                    } catch (Exception e) {
                        // the loss it throws
                    }
                });
            case INTERRUPT_ON_END -> {
                Lease lease = table.tryAcquire(name, LEASE).orElseThrow();
                callers.execute(() -> {
                    try (Lease.Registration stop = lease.interruptOnEnd()) {
                        block(lease);
                    } catch (InterruptedException e) {
                        // seen by block
                    }
                });
            }
            case STOP_ON_END -> {
                Lease lease = table.tryAcquire(name, LEASE).orElseThrow();
                lease.stopOnEnd(() -> stopped.complete(null));
                started.complete(lease);
            }
        }
    }

    /** The work: runs until interrupted, then tells the test. */
    private void block(Lease lease) throws InterruptedException {
        started.complete(lease);
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException e) {
            stopped.complete(null);
            throw e;
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
