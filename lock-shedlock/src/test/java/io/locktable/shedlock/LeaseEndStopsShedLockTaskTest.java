package io.locktable.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.locktable.Lease;
import io.locktable.LockTableListener;
import io.locktable.shedlock.Instances.Instance;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ShedLock provider's case of the lost-signal matrix of issue #34: the provider runs no work of its own, it binds
 * the lease as {@link Lease#current()} inside the task, and a task that registers {@code interruptOnEnd()} there is
 * interrupted when the lease is lost, while a listener of the table blocks its event thread.
 */
@DynamoDbEngineTest
class LeaseEndStopsShedLockTaskTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration STOPPED_WITHIN = LEASE.plusSeconds(15);
    private static final Duration SETUP = Duration.ofSeconds(20);

    private final Instances instances;
    private final ExecutorService jobs = Executors.newCachedThreadPool();
    private final CountDownLatch lift = new CountDownLatch(1);
    private final BlockingListener listener = new BlockingListener(lift);

    LeaseEndStopsShedLockTaskTest(DynamoDbEngine engine, TestTable table) {
        this.instances = new Instances(engine, table);
    }

    @AfterEach
    void liftAndClose() {
        lift.countDown();
        jobs.shutdownNow();
        instances.close();
    }

    @Test
    void aTaskThatRegistersIsInterruptedAtTheLossWhileAListenerBlocks() throws Exception {
        Instance instance = instances.add(builder -> builder.listener(listener));
        CompletableFuture<Lease> entered = new CompletableFuture<>();
        CompletableFuture<Boolean> stopped = new CompletableFuture<>(); // whether the listener still blocked then
        CompletableFuture<Boolean> heldAtStop = new CompletableFuture<>();
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(instance.provider());
        jobs.execute(() -> executor.executeWithLock(
                (Runnable) () -> {
                    Lease lease = Lease.current().orElseThrow();
                    try (Lease.Registration stop = lease.interruptOnEnd()) {
                        entered.complete(lease);
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        heldAtStop.complete(lease.isHeld());
                        stopped.complete(listener.blocks());
                    }
                },
                Instances.config(Instances.lockName(), LEASE, Duration.ZERO)));
        Lease lease = entered.get(SETUP.toMillis(), TimeUnit.MILLISECONDS);

        instance.locks().tryAcquire(BlockingListener.PREFIX + UUID.randomUUID(), LEASE); // blocks the event thread
        assertThat(listener.blocking.await(SETUP.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        assumeTrue(
                !stopped.isDone() || stopped.getNow(false),
                "the lease ran out before the listener blocked (renewals late on a loaded machine): nothing to check");
        instance.faults().blackhole("UpdateItem"); // no renewal reaches the table: the lease runs out

        assertThat(stopped.get(STOPPED_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
                .as("interrupted while the listener still blocked")
                .isTrue();
        assertThat(heldAtStop.getNow(true)).isFalse();
        assertThat(lease.isHeld()).isFalse();
    }

    /** Blocks the table's event thread at the acquire of a lock of its prefix, until the test ends. */
    static final class BlockingListener implements LockTableListener {
        static final String PREFIX = "block-events-";
        final CountDownLatch blocking = new CountDownLatch(1);
        private final CountDownLatch until;
        private volatile long returnedAt;

        BlockingListener(CountDownLatch until) {
            this.until = until;
        }

        boolean blocks() {
            return blocking.getCount() == 0 && returnedAt == 0;
        }

        @Override
        public void onAcquired(Lease lease, boolean tookOver) {
            if (!lease.name().startsWith(PREFIX)) {
                return;
            }
            blocking.countDown();
            try {
                until.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            returnedAt = System.nanoTime();
        }
    }
}
