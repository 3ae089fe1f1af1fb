package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Cancelling the non-blocking calls on the run's engine (dynalite, or moto): what the requests actually leave in the
 * table. The decisions themselves are tested without an engine in {@link AsyncApiTest}.
 */
@DynamoDbEngineTest
class AsyncEngineTest {

    /** A waiting contender polls every second. */
    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    AsyncEngineTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aCancelledAcquireWhoseWriteWasInFlightLeavesTheLockReleased() {
        Contenders.Contender contender = contenders.add();
        contender.faults().delayReply("UpdateItem", Duration.ofMillis(500), 1); // applied, answered late

        CompletableFuture<Lease> acquire = contender.locks().acquireAsync(name, LEASE);
        await().until(() -> contender.requests().count("UpdateItem") == 1);
        assertThat(acquire.cancel(true)).isTrue();

        await().atMost(Duration.ofSeconds(5)).until(() -> !contenders.item(name).containsKey("owner"));
        assertThat(contenders.item(name)).containsKey("fence"); // it was granted, then released: not given back
        assertThat(contender.requests().count("UpdateItem"))
                .as("the acquire, then its release")
                .isEqualTo(2);
        assertThat(contender.locks().heldLeases()).isEmpty();
    }

    @Test
    void acquireAsyncTimesOutAtItsMaxWaitBehindBusyWorkers() throws Exception {
        Lease held = contenders.add().locks().tryAcquire(name, LEASE).orElseThrow();
        SlowLocks slow = new SlowLocks(name);
        Contenders.Contender waiter = contenders.add(builder -> {}, o -> o.addExecutionInterceptor(slow));
        List<CompletableFuture<Lease>> others = new ArrayList<>();
        for (int i = 0; i < Timing.DEFAULT_WORKERS; i++) {
            others.add(waiter.locks().acquireAsync(SlowLocks.PREFIX + Contenders.lockName(), LEASE));
        }
        await().until(() -> slow.held.get() == Timing.DEFAULT_WORKERS); // every worker is in a slow request

        long start = System.nanoTime();
        CompletableFuture<Lease> waiting = waiter.locks().acquireAsync(name, LEASE, Duration.ofMillis(300));

        assertThat(waiting)
                .as("it ends at its wait, not when a worker is free again after %s", SlowLocks.DELAY)
                .failsWithin(Duration.ofMillis(1500))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        int sentByThen = slow.sentForLock.get();
        for (CompletableFuture<Lease> other : others) {
            other.get(10, TimeUnit.SECONDS).release(); // the workers are free again: a queued attempt would run now
        }
        assertThat(slow.sentForLock.get())
                .as("no attempt was sent after the wait's end")
                .isEqualTo(sentByThen);
        assertThat(waiter.locks().heldLeases()).isEmpty();
        assertThat(held.isHeld()).isTrue();
    }

    /**
     * Holds each request of the locks named with {@link #PREFIX} for {@link #DELAY} before it is sent, as a slow
     * network would, and counts the requests of one other lock.
     */
    static final class SlowLocks implements ExecutionInterceptor {
        static final String PREFIX = "slow-";
        static final Duration DELAY = Duration.ofSeconds(4);

        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger sentForLock = new AtomicInteger();
        private final String counted;

        SlowLocks(String counted) {
            this.counted = counted;
        }

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            String key = lockKey(context.request());
            if (key.equals("LOCK#" + counted)) {
                sentForLock.incrementAndGet();
            } else if (key.startsWith("LOCK#" + PREFIX)) {
                held.incrementAndGet();
                try {
                    Thread.sleep(DELAY.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the request's own timeout: let it end
                } finally {
                    held.decrementAndGet();
                }
            }
        }

        private static String lockKey(SdkRequest request) {
            Map<String, AttributeValue> key = request instanceof UpdateItemRequest update
                    ? update.key()
                    : request instanceof GetItemRequest get ? get.key() : Map.of();
            return key.values().stream()
                    .map(AttributeValue::s)
                    .filter(s -> s != null && s.startsWith("LOCK#"))
                    .findFirst()
                    .orElse("");
        }
    }

    @Test
    void aCancelledWaitSendsNothingMoreAndTakesNothing() throws Exception {
        Lease held = contenders.add().locks().tryAcquire(name, LEASE).orElseThrow();
        Contenders.Contender waiter = contenders.add();
        CompletableFuture<Lease> acquire = waiter.locks().acquireAsync(name, LEASE);
        await().until(() -> waiter.requests().count("UpdateItem") == 1); // refused: it polls every second now
        Thread.sleep(100);

        acquire.cancel(true);
        int sent = waiter.requests().operations().size();
        held.release();
        Thread.sleep(LEASE.toMillis());

        assertThat(waiter.requests().operations()).hasSize(sent);
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }
}
