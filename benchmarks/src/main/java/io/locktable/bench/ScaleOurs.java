package io.locktable.bench;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Scenario 5 for LockTable: one {@code LockTable} (default settings, two scheduler threads) acquires many leases on
 * one thread and holds them. The renewal lateness comes from {@link LockTableListener#onRenewed} callbacks: the
 * callback runs on the thread that sent the renewal, right after it, so {@link RequestCounter#lastSendOnThisThread()}
 * is that renewal's send time, compared with the previous send plus a third of the lease.
 */
public final class ScaleOurs {

    private static final String PREFIX = "s-";

    private final DynamoDbEngine engine;

    /**
     * Sets the scenario up.
     *
     * @param engine the engine
     */
    public ScaleOurs(DynamoDbEngine engine) {
        this.engine = engine;
    }

    /**
     * Holds {@code count} leases.
     *
     * @param count how many
     * @param lease the lease of each
     * @return the figures
     */
    public ScaleResult run(int count, Duration lease) {
        String table = Tables.ours(engine, "bench-scale-ours");
        long period = lease.toNanos() / 3;
        Lateness lateness = new Lateness(count, period, count * 16);
        AtomicInteger lost = new AtomicInteger();
        LockTableListener listener = new LockTableListener() {
            @Override
            public void onRenewed(Lease renewed) {
                if (renewed.name().startsWith(PREFIX)) {
                    lateness.renewed(index(renewed.name()), RequestCounter.lastSendOnThisThread());
                }
            }

            @Override
            public void onLost(Lease gone, LeaseEnd reason) {
                lost.incrementAndGet();
            }
        };
        Set<Thread> threadsBefore = Machine.threadSnapshot();
        try (DynamoDbClient client = Engine.client(engine, RequestCounter.create())) {
            LockTable locks = LockTable.builder(client, table, Tables.OURS_KEY)
                    .listener(listener)
                    .build();
            try {
                for (int i = 0; i < 50; i++) { // warms up the classes and the connection pool
                    locks.tryAcquire("warm-" + i, lease).orElseThrow().release();
                }
                List<Lease> held = new ArrayList<>(count);
                long heapBefore = Machine.usedHeapAfterGc();
                long start = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    Lease acquired = locks.tryAcquire(PREFIX + i, lease).orElseThrow();
                    lateness.acquired(i, RequestCounter.lastSendOnThisThread());
                    held.add(acquired);
                }
                double acquireSeconds = (System.nanoTime() - start) / 1e9;
                lateness.markSteady();
                long heapAfter = Machine.usedHeapAfterGc();
                long steadyUntil = System.nanoTime() + 2 * period + 1_000_000_000L;
                while (System.nanoTime() < steadyUntil) {
                    Machine.sleep(250);
                }
                Map<String, Integer> threads = Machine.threadsAddedSince(threadsBefore, table);
                int stillHeld = (int) held.stream().filter(Lease::isHeld).count();
                int renewalThreads = Machine.threadsNamed("locktable-" + table);
                releaseAll(held);
                return new ScaleResult(
                        "LockTable",
                        count,
                        lease,
                        Duration.ofNanos(period),
                        acquireSeconds,
                        threads.values().stream().mapToInt(Integer::intValue).sum(),
                        threads,
                        renewalThreads,
                        (heapAfter - heapBefore) / (double) count,
                        lateness.all(),
                        lateness.steady(),
                        Math.max(lost.get(), count - stillHeld),
                        lateness.renewals());
            } finally {
                locks.close();
                engine.deleteTable(table);
            }
        }
    }

    private static int index(String name) {
        return Integer.parseInt(name, PREFIX.length(), name.length(), 10);
    }

    private static void releaseAll(List<Lease> held) {
        Parallel.forEach(held, Lease::release);
    }
}
