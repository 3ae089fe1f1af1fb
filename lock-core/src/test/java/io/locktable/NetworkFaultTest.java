package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TcpProxy;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults of the network itself, through a {@link TcpProxy} between one holder and the engine: the SDK's own
 * timeouts, retries and connection pool meet a stalled, reset or answer-losing socket, where the fault suite's
 * interceptor fails requests inside the SDK instead.
 */
@DynamoDbEngineTest
class NetworkFaultTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private final TcpProxy proxy;
    private final Contenders contenders;

    NetworkFaultTest(DynamoDbEngine engine, TestTable table) {
        assumeTrue(
                TcpProxy.supports(engine.endpoint()),
                "engine " + engine.name() + " is reached over TLS, which the loopback proxy cannot stand in front of");
        this.contenders = new Contenders(engine, table);
        this.proxy = TcpProxy.start(engine.endpoint());
    }

    /** The contenders first, while the proxy still passes their releases. */
    @AfterEach
    void close() throws Exception {
        proxy.mode(TcpProxy.Mode.PASS);
        contenders.close();
        proxy.close();
    }

    @Test
    void aHolderCutOffByTheNetworkStopsBelievingBeforeTheContenderTakesOver() throws InterruptedException {
        Contenders.Contender holder = contenders.addVia(proxy.endpoint(), b -> {});
        Contenders.Contender contender = contenders.add();
        String name = Contenders.lockName();
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        AtomicLong endedAt = new AtomicLong();
        held.whenEnded().thenRun(() -> endedAt.set(System.nanoTime()));

        long cut = System.nanoTime();
        proxy.mode(TcpProxy.Mode.BLACKHOLE);
        Lease next = contender.locks().acquire(name, LEASE);
        long acquiredAt = System.nanoTime();

        assertThat(held.whenEnded()).isCompletedWithValue(LeaseEnd.EXPIRED);
        assertThat(endedAt.get() - acquiredAt)
                .as("the holder stopped believing first")
                .isNegative();
        assertThat(Duration.ofNanos(acquiredAt - cut))
                .as("a whole lease watched after the cut")
                .isGreaterThanOrEqualTo(LEASE);
        assertThat(next.tookOver()).isTrue();
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }

    @ParameterizedTest
    @EnumSource(
            value = TcpProxy.Mode.class,
            names = {"DROP_REPLIES", "RESET"})
    void aShortNetworkFaultDuringARenewalLeavesTheLeaseHeld(TcpProxy.Mode fault) {
        Contenders.Contender holder = contenders.addVia(proxy.endpoint(), b -> {});
        Contenders.Contender contender = contenders.add();
        String name = Contenders.lockName();
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        long accepted = proxy.acceptedConnections();

        // the fault lasts until the first renewal has met it: its reply lost (after the engine applied it), or its
        // connections reset
        proxy.mode(fault);
        await().atMost(LEASE)
                .until(() -> fault == TcpProxy.Mode.DROP_REPLIES
                        ? proxy.droppedReplies() > 0
                        : proxy.acceptedConnections() > accepted);
        proxy.mode(TcpProxy.Mode.PASS);
        Instant healed = Instant.now();

        await().atMost(LEASE.plus(MARGIN)).until(() -> held.renewedAt().isAfter(healed));
        assertThat(held.isHeld()).isTrue();
        assertThat(held.whenEnded()).isNotDone();
        assertThat(contender.locks().tryAcquire(name, LEASE)).isEmpty();
        assertThat(contenders.item(name).get("owner").s())
                .startsWith(holder.locks().owner() + ".");
    }
}
