package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The fencing tokens of a lock, in memory: they rise with each acquisition, and a token under the highest a table saw
 * is reported to its listener. The held check over an engine is in {@link FencingTest}.
 */
class FencingTokenTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @AutoClose
    private final MemoryTables tables = new MemoryTables("FencingToken");

    @Test
    void tokensOfOneLockStrictlyIncrease() {
        LockTable a = tables.add();
        LockTable b = tables.add();
        String name = Contenders.lockName();
        long last = 0;
        for (int i = 0; i < 6; i++) {
            Lease lease = (i % 2 == 0 ? a : b).tryAcquire(name, LEASE).orElseThrow();
            assertThat(lease.fencingToken()).isGreaterThan(last);
            last = lease.fencingToken();
            lease.release();
        }
        assertThat(last).isEqualTo(6);
    }

    @Test
    void aFenceThatGoesBackIsReportedToTheListener() {
        List<String> regressions = new CopyOnWriteArrayList<>();
        LockTable a = tables.add(builder -> builder.listener(new LockTableListener() {
            @Override
            public void onFenceRegressed(String name, long highestSeen, long fencingToken) {
                regressions.add(name + " " + highestSeen + "->" + fencingToken);
            }
        }));
        String name = Contenders.lockName();
        for (int i = 0; i < 3; i++) {
            a.tryAcquire(name, LEASE).orElseThrow().release();
        }
        tables.deleteItem(name);

        // a table that never saw the lock recreates the item from 1; this table's own acquires would continue from
        // its mark (AcquisitionIdentityTest), but it sees the other's token and then raises the item's by one
        Lease lease = tables.add().tryAcquire(name, LEASE).orElseThrow();
        a.read(name);
        lease.release();
        a.tryAcquire(name, LEASE).orElseThrow();

        assertThat(lease.fencingToken()).isEqualTo(1);
        // listeners hear it on the table's event thread; the mark does not go down, so each token under it is
        // reported, as a system that checks tokens refuses each
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(regressions).containsExactly(name + " 3->1", name + " 3->2"));
    }
}
