package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TcpProxy;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An engine that answers slower than the default workers renew: every answer held back by a {@link TcpProxy}, so that
 * six workers (one round trip each at a time) carry a quarter of the renewals that fall due. The bound of the
 * workers rises while renewals are late, and every lease is kept at the builder's defaults.
 */
@DynamoDbEngineTest
class SlowEngineTest {

    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration REPLY_DELAY = Duration.ofMillis(400);
    /** 60 renewals a second, 400 ms each: 24 in flight; six workers carry 15 a second. */
    private static final int LEASES = 120;

    private final TcpProxy proxy;
    private final Contenders contenders;
    private final ExecutorService callers = Executors.newFixedThreadPool(24);

    SlowEngineTest(DynamoDbEngine engine, TestTable table) {
        assumeTrue(
                TcpProxy.supports(engine.endpoint()),
                "engine " + engine.name() + " is reached over TLS, which the loopback proxy cannot stand in front of");
        this.contenders = new Contenders(engine, table);
        this.proxy = TcpProxy.start(engine.endpoint());
    }

    @AfterEach
    void close() throws Exception {
        callers.shutdownNow();
        proxy.delay(Duration.ZERO, Duration.ZERO);
        contenders.close();
        proxy.close();
    }

    @Test
    void manyLeasesOverAnEngineSlowerThanTheDefaultWorkersAreAllKept() throws Exception {
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger late = new AtomicInteger();
        Contenders.Contender holder = contenders.addVia(
                proxy.endpoint(),
                b -> b.listener(new LockTableListener() {
                    @Override
                    public void onLost(Lease lease, LeaseEnd reason) {
                        lost.incrementAndGet();
                    }

                    @Override
                    public void onRenewalLate(Lease lease, Duration lateness) {
                        late.incrementAndGet();
                    }
                }));
        proxy.delay(Duration.ZERO, REPLY_DELAY);
        String prefix = Contenders.lockName();
        List<Future<Lease>> acquired = new ArrayList<>();
        for (int i = 0; i < LEASES; i++) {
            String name = prefix + "-" + i;
            acquired.add(
                    callers.submit(() -> holder.locks().tryAcquire(name, LEASE).orElseThrow()));
        }
        List<Lease> leases = new ArrayList<>();
        for (Future<Lease> lease : acquired) {
            leases.add(lease.get(60, TimeUnit.SECONDS));
        }
        String workerThreads = "locktable-" + holder.locks().tableName() + "-worker-";
        int mostWorkers = 0;
        long holdUntil = System.nanoTime() + LEASE.multipliedBy(5).dividedBy(2).toNanos();
        while (System.nanoTime() - holdUntil < 0) {
            int workers = (int) Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.isAlive() && t.getName().startsWith(workerThreads))
                    .count();
            mostWorkers = Math.max(mostWorkers, workers);
            Thread.sleep(100);
        }

        assertThat(leases).as("held after two and a half leases").allMatch(Lease::isHeld);
        assertThat(lost).hasValue(0);
        assertThat(mostWorkers)
                .as("more than the default six, at most the cap")
                .isGreaterThan(6)
                .isLessThanOrEqualTo(Timing.MAX_WORKERS);
    }
}
