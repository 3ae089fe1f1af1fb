package io.locktable.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The registry's locks on a thread whose interrupt flag is set, or that is interrupted during a request, over the real
 * engine: the SDK aborts a request made on an interrupted thread, which an in-memory table never does. A lease much
 * longer than the bounds, so a lock found free again was given back, not run out.
 */
@DynamoDbEngineTest
class LockInterruptTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(10);

    /** Interrupts the calling thread once, after its next acquire's write reached the engine. */
    static final class InterruptAfterWrite implements ExecutionInterceptor {
        final AtomicBoolean armed = new AtomicBoolean();

        @Override
        public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
            if (context.request() instanceof UpdateItemRequest && armed.compareAndSet(true, false)) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final String name = "lock-" + UUID.randomUUID();
    private final InterruptAfterWrite interrupter = new InterruptAfterWrite();
    private final DynamoDbClient interruptingClient;
    private final List<LockTable> tables = new ArrayList<>();

    LockInterruptTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.interruptingClient = engine.newClient(o -> o.addExecutionInterceptor(interrupter));
    }

    @AfterEach
    void close() {
        Thread.interrupted();
        tables.forEach(LockTable::close);
        interruptingClient.close();
    }

    @Test
    void tryLockTakesAFreeLockOnAnInterruptedThreadAndKeepsTheFlag() {
        Lock lock = registry(engine.client()).obtain(name);

        Thread.currentThread().interrupt();
        boolean taken = lock.tryLock();
        boolean interruptedAfter = Thread.interrupted();

        assertThat(taken)
                .as("a free lock is taken, as ReentrantLock.tryLock() takes it")
                .isTrue();
        assertThat(interruptedAfter).as("the flag is kept").isTrue();
        Thread.currentThread().interrupt();
        lock.unlock();
        assertThat(Thread.interrupted()).as("unlock keeps the flag too").isTrue();
        assertThat(free(registry(engine.client()), name))
                .as("the unlock on an interrupted thread released the lease in the table")
                .isTrue();
    }

    @Test
    void tryLockInterruptedDuringItsRequestAnswersKeepsTheFlagAndLeaksNothing() {
        Lock lock = registry(interruptingClient).obtain(name);
        interrupter.armed.set(true);

        // the aborted write was applied: the attempt made again may find it before the table gave it back
        boolean taken = lock.tryLock();
        boolean interruptedAfter = Thread.interrupted();

        assertThat(interruptedAfter)
                .as("no AbortedException, and the flag is kept")
                .isTrue();
        assertThat(((LockTableLock) lock).isHeldByCurrentThread()).isEqualTo(taken);
        if (taken) {
            lock.unlock();
        }
        LockTableLockRegistry other = registry(engine.client());
        await().atMost(BOUND).alias("nothing leaked").until(() -> free(other, name));
    }

    @Test
    void tryLockWithATimeInterruptedDuringItsFirstAttemptThrowsInterruptedExceptionAndHoldsNothing() {
        LockTableLockRegistry registry = registry(interruptingClient);
        Lock lock = registry.obtain(name);
        interrupter.armed.set(true);

        assertThatThrownBy(() -> lock.tryLock(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);

        assertThat(Thread.interrupted())
                .as("the flag is cleared, as Lock requires")
                .isFalse();
        assertThat(((LockTableLock) lock).isLocked()).isFalse();
        LockTableLockRegistry other = registry(engine.client());
        await().atMost(BOUND)
                .alias("the lease its write won was given back, long before it could run out")
                .until(() -> free(other, name));
        assertThat(tables.get(0).heldLeases()).isEmpty();
    }

    @Test
    void tryLockWithATimeOnAnInterruptedThreadThrowsInterruptedExceptionAndSendsNothing() {
        Lock lock = registry(engine.client()).obtain(name);

        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> lock.tryLock(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(free(registry(engine.client()), name)).isTrue();
    }

    @Test
    void lockTakesAFreeLockWhenInterruptedDuringItsRequestAndSetsTheFlagAgain() {
        Lock lock = registry(interruptingClient).obtain(name);
        interrupter.armed.set(true);

        lock.lock();
        boolean interruptedAfter = Thread.interrupted();

        assertThat(interruptedAfter).isTrue();
        assertThat(((LockTableLock) lock).isHeldByCurrentThread()).isTrue();
        assertThat(tables.get(0).heldLeases())
                .as("one lease: the aborted write's was given back")
                .hasSize(1);
        lock.unlock();
        assertThat(free(registry(engine.client()), name)).isTrue();
    }

    @Test
    void lockOnAnInterruptedThreadTakesAFreeLockAndSetsTheFlagAgain() {
        Lock lock = registry(engine.client()).obtain(name);

        Thread.currentThread().interrupt();
        lock.lock();

        assertThat(Thread.interrupted()).isTrue();
        lock.unlock();
        assertThat(free(registry(engine.client()), name)).isTrue();
    }

    @Test
    void lockInterruptiblyInterruptedDuringItsRequestThrowsInterruptedExceptionAndHoldsNothing() {
        Lock lock = registry(interruptingClient).obtain(name);
        interrupter.armed.set(true);

        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);

        assertThat(Thread.interrupted()).isFalse();
        assertThat(((LockTableLock) lock).isLocked()).isFalse();
        LockTableLockRegistry other = registry(engine.client());
        await().atMost(BOUND).until(() -> free(other, name));
    }

    private LockTableLockRegistry registry(DynamoDbClient client) {
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        LockTable locks = builder.build();
        tables.add(locks);
        return new LockTableLockRegistry(locks, LEASE);
    }

    /** Whether the lock can be taken from another instance right now (taken and released again if so). */
    private static boolean free(LockTableLockRegistry other, String name) {
        Lock lock = other.obtain(name);
        if (lock.tryLock()) {
            lock.unlock();
            return true;
        }
        return false;
    }
}
