package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TcpProxy;
import io.locktable.test.TestTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * What a client, or something wrapped around it, can throw, and what a lease must make of it (issue 23, points 3, 4,
 * 5 and 7).
 */
@DynamoDbEngineTest
class ClientFailureTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofSeconds(2);

    private final DynamoDbEngine engine;

    @AutoClose
    private final Contenders contenders;

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final String name = Contenders.lockName();

    ClientFailureTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.contenders = new Contenders(engine, table);
    }

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    @Test
    void anAcquireAppliedThenFailedByADecoratorOfTheClientIsGivenBack() {
        DecoratedClient client = new DecoratedClient(contenders.client(o -> {}))
                .throwAfter("UpdateItem", () -> new UncheckedIOException(new IOException("the tracer failed")), 1);
        LockTable locks = contenders.over(client, builder -> {});

        assertThatThrownBy(() -> locks.tryAcquire(name, LEASE)).isInstanceOf(UncheckedIOException.class);

        // only a refusal of DynamoDB itself proves a write was not applied: this one was, and is given back, long
        // before its lease of 30 s would free it
        await().atMost(Duration.ofSeconds(5)).until(() -> !contenders.item(name).containsKey("owner"));
        assertThat(contenders.add().locks().tryAcquire(name, LEASE)).isPresent();
    }

    @Test
    void anErrorThrownByTheClientDuringOneRenewalDoesNotStopTheRenewals() throws Exception {
        DecoratedClient client = new DecoratedClient(contenders.client(o -> {}));
        LockTable locks = contenders.over(client, builder -> {});
        Lease lease = locks.tryAcquire(name, SHORT_LEASE).orElseThrow();

        client.throwBefore("UpdateItem", () -> new AssertionError("a bug in a decorator"), 1);
        Thread.sleep(SHORT_LEASE.multipliedBy(3).toMillis()); // renewals fall due every 667 ms

        assertThat(lease.isHeld()).as("renewed after the failed attempt").isTrue();
        assertThat(lease.whenEnded()).isNotDone();
        assertThat(contenders.add().locks().tryAcquire(name, SHORT_LEASE)).isEmpty();
    }

    @Test
    void aWaitingAcquireWhoseRequestsTimeOutOnASlowEngineAsksAgainUntilItsMaxWait() throws Exception {
        assumeThat(TcpProxy.supports(engine.endpoint())).as("a loopback engine").isTrue();
        Lease held = contenders.add().locks().tryAcquire(name, SHORT_LEASE).orElseThrow();
        try (TcpProxy proxy = TcpProxy.start(engine.endpoint())) {
            Contenders.Contender waiting = contenders.addVia(proxy.endpoint(), builder -> {});
            // answers slower than the 2 s a read of a 2 s lease may take: every read times out meanwhile
            proxy.delay(Duration.ZERO, Duration.ofMillis(2_500));
            Future<Lease> acquire =
                    callers.submit(() -> waiting.locks().acquire(name, SHORT_LEASE, Duration.ofSeconds(20)));
            Thread.sleep(6_000);
            assertThat(acquire).as("still waiting, through the timeouts").isNotDone();

            proxy.delay(Duration.ZERO, Duration.ZERO);
            held.release();

            Lease lease = acquire.get(15, TimeUnit.SECONDS);
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.fencingToken()).isEqualTo(held.fencingToken() + 1);
        }
    }

    /**
     * A request cut to a few milliseconds by the caller's wait can block for the HTTP client's read timeout (30 s):
     * the SDK's timeout fires before the call's connection can be aborted. A waiting acquire with little or no wait
     * left still gives each request {@link Timing#SHORTEST}, so a free lock is taken even with no wait at all.
     */
    @Test
    void aWaitingAcquireWithLittleOrNoWaitLeftSendsNoRequestWithATimeoutTooShortToAbort() throws Exception {
        Contenders.Contender waiting = contenders.add();
        Lease free = waiting.locks().acquire(name, SHORT_LEASE, Duration.ZERO);
        assertThat(free.isHeld()).as("a free lock, with no wait at all").isTrue();
        free.release();

        Lease held = contenders.add().locks().tryAcquire(name, SHORT_LEASE).orElseThrow();
        waiting.requests().clear();
        for (Duration wait : List.of(Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(120))) {
            assertThatThrownBy(() -> waiting.locks().acquire(name, SHORT_LEASE, wait))
                    .isInstanceOf(TimeoutException.class);
        }
        assertThat(waiting.requests().sent())
                .isNotEmpty()
                .allSatisfy(sent -> assertThat(
                                sent.request().overrideConfiguration().flatMap(o -> o.apiCallTimeout()))
                        .as(sent.operation() + "'s timeout")
                        .hasValueSatisfying(timeout -> assertThat(timeout).isGreaterThanOrEqualTo(Timing.SHORTEST)));
        assertThat(held.isHeld()).isTrue();
    }

    @Test
    void aSlowListenerDoesNotKeepALostLeadersWorkRunningAfterTheSuccessorStarted() throws Exception {
        DecoratedClient client = new DecoratedClient(contenders.client(o -> {}));
        LockTable leader = contenders.over(
                client,
                builder -> builder.listener(new LockTableListener() {
                    @Override
                    public void onRenewalFailed(Lease lease, Exception error) {
                        sleep(Duration.ofSeconds(6)); // the event thread is busy with this the whole time
                    }
                }));
        AtomicLong interruptedAt = new AtomicLong();
        CountDownLatch leading = new CountDownLatch(1);
        Future<?> election = callers.submit(() -> {
            leader.runAsLeader(name, SHORT_LEASE, lease -> {
                leading.countDown();
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    interruptedAt.compareAndSet(0, System.nanoTime());
                    throw e;
                }
            });
            return null;
        });
        assertThat(leading.await(5, TimeUnit.SECONDS)).isTrue();
        // from now on every write of the leader fails at once: its first renewal's failure keeps the listener busy
        // from a third of the lease, before the lease runs out
        client.throwBefore("UpdateItem", () -> SdkClientException.create("the network is gone"), 1_000);

        Lease successor = contenders.add().locks().acquire(name, SHORT_LEASE, Duration.ofSeconds(10));
        long successorAt = System.nanoTime();

        await().atMost(Duration.ofSeconds(10)).until(() -> interruptedAt.get() != 0);
        assertThat(interruptedAt.get() - successorAt)
                .as("the old work was interrupted before the successor's term began")
                .isNegative();
        assertThat(successor.isHeld()).isTrue();
        election.cancel(true);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
