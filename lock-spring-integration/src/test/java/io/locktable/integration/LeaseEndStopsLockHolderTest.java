package io.locktable.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The Spring Integration lock's case of the lost-signal matrix of issue #34: the lock runs no work of its own, it
 * binds the lease as {@link Lease#current()} on the holding thread, and a holder that registers {@code
 * interruptOnEnd()} there is interrupted when the lease is lost, while a listener of the table blocks its event
 * thread.
 */
@DynamoDbEngineTest
class LeaseEndStopsLockHolderTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration STOPPED_WITHIN = LEASE.plusSeconds(15);
    private static final Duration SETUP = Duration.ofSeconds(20);
    private static final String BLOCKING_PREFIX = "block-events-";

    private final FaultInjector faults = new FaultInjector();
    private final DynamoDbClient client;
    private final LockTable locks;
    private final ExecutorService holders = Executors.newCachedThreadPool();
    private final CountDownLatch lift = new CountDownLatch(1);
    private final CountDownLatch blocking = new CountDownLatch(1);
    private volatile long listenerReturnedAt;

    LeaseEndStopsLockHolderTest(DynamoDbEngine engine, TestTable table) {
        client = engine.newClient(o -> o.addExecutionInterceptor(faults));
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey())
                .listener(new LockTableListener() {
                    @Override
                    public void onAcquired(Lease lease, boolean tookOver) {
                        if (lease.name().startsWith(BLOCKING_PREFIX)) {
                            blockEventThread();
                        }
                    }
                });
        table.sortKey().ifPresent(builder::sortKey);
        locks = builder.build();
    }

    @AfterEach
    void liftAndClose() {
        lift.countDown();
        holders.shutdownNow();
        faults.clear();
        locks.close();
        client.close();
    }

    @Test
    void aHolderThatRegistersIsInterruptedAtTheLossWhileAListenerBlocks() throws Exception {
        Lock lock = new LockTableLockRegistry(locks, LEASE).obtain("lock-" + UUID.randomUUID());
        CompletableFuture<Lease> entered = new CompletableFuture<>();
        CompletableFuture<Boolean> stopped = new CompletableFuture<>(); // whether the listener still blocked then
        CompletableFuture<Boolean> heldAtStop = new CompletableFuture<>();
        holders.execute(() -> {
            lock.lock();
            try {
                Lease lease = Lease.current().orElseThrow();
                try (Lease.Registration stop = lease.interruptOnEnd()) {
                    entered.complete(lease);
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    heldAtStop.complete(lease.isHeld());
                    stopped.complete(blocking.getCount() == 0 && listenerReturnedAt == 0);
                }
            } finally {
                try {
                    lock.unlock();
                } catch (RuntimeException e) {
                    // the lock was lost: an unlock says so
                }
            }
        });
        Lease lease = entered.get(SETUP.toMillis(), TimeUnit.MILLISECONDS);

        locks.tryAcquire(BLOCKING_PREFIX + UUID.randomUUID(), LEASE); // its event blocks the event thread
        assertThat(blocking.await(SETUP.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assumeTrue(
                !stopped.isDone() || stopped.getNow(false),
                "the lease ran out before the listener blocked (renewals late on a loaded machine): nothing to check");
        faults.blackhole("UpdateItem"); // no renewal reaches the table: the lease runs out

        assertThat(stopped.get(STOPPED_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
                .as("interrupted while the listener still blocked")
                .isTrue();
        assertThat(heldAtStop.getNow(true)).isFalse();
        assertThat(lease.isHeld()).isFalse();
    }

    private void blockEventThread() {
        blocking.countDown();
        try {
            lift.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listenerReturnedAt = System.nanoTime();
    }
}
