package io.locktable.bench;

import com.amazonaws.services.dynamodbv2.LockItem;
import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Scenario 5 for the peer: one Lock Client acquires many locks on one thread and holds them with its heartbeat
 * thread, at the same lease as LockTable and a heartbeat every third of it. It has no listener, so the lateness
 * comes from the send times of its heartbeats ({@code UpdateItem}s, seen by a {@link RequestCounter}): each
 * heartbeat of a lock is expected one period after the previous one. A lock's first heartbeat only starts its
 * schedule, since the heartbeat loop does not run on the acquire's time.
 */
public final class ScalePeer {

    private static final String PREFIX = "s-";

    private final DynamoDbEngine engine;

    /**
     * Sets the scenario up.
     *
     * @param engine the engine
     */
    public ScalePeer(DynamoDbEngine engine) {
        this.engine = engine;
    }

    /**
     * Waits until the heartbeat thread has finished its pass over the released locks, so closing the client does not
     * interrupt it in the middle (which the peer logs as a warning for every lock left in the pass).
     */
    private static void awaitQuietHeartbeats(RequestCounter counter, long periodNanos) {
        long deadline = System.nanoTime() + 2 * periodNanos;
        long previous = -1;
        while (System.nanoTime() < deadline) {
            long now = counter.snapshot().of("UpdateItem");
            if (now == previous) {
                return;
            }
            previous = now;
            Machine.sleep(300);
        }
    }

    /**
     * Holds {@code count} locks.
     *
     * @param count how many
     * @param lease the lease of each
     * @return the figures
     */
    public ScaleResult run(int count, Duration lease) {
        long period = lease.toNanos() / 3;
        Lateness lateness = new Lateness(count, period, count * 16);
        RequestCounter counter = RequestCounter.observed((operation, key, nanos) -> {
            if ("UpdateItem".equals(operation) && key != null && key.startsWith(PREFIX)) {
                lateness.renewed(Integer.parseInt(key, PREFIX.length(), key.length(), 10), nanos);
            }
        });
        Set<Thread> threadsBefore = Machine.threadSnapshot();
        try (DynamoDbClient client = Engine.client(engine, counter)) {
            String table = Tables.peer(client, "bench-scale-peer");
            PeerDriver peer = PeerDriver.sameAsOurs(client, table, lease);
            try {
                for (int i = 0; i < 50; i++) {
                    peer.release(peer.tryAcquire("warm-" + i));
                }
                List<LockItem> held = new ArrayList<>(count);
                long heapBefore = Machine.usedHeapAfterGc();
                long start = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    LockItem item = peer.tryAcquire(PREFIX + i);
                    if (item == null) {
                        throw new IllegalStateException("free lock " + PREFIX + i + " was busy");
                    }
                    held.add(item);
                }
                double acquireSeconds = (System.nanoTime() - start) / 1e9;
                lateness.markSteady();
                long failuresBefore = counter.conditionFailures();
                long heapAfter = Machine.usedHeapAfterGc();
                long steadyUntil = System.nanoTime() + 2 * period + 1_000_000_000L;
                while (System.nanoTime() < steadyUntil) {
                    Machine.sleep(250);
                }
                Map<String, Integer> threads = Machine.threadsAddedSince(threadsBefore, table);
                int stillHeld = (int) held.stream().filter(peer::isHeld).count();
                long failures = counter.conditionFailures() - failuresBefore;
                int heartbeatThreads = Machine.threadsNamed("dynamodb-lock-client-");
                Parallel.forEach(held, peer::release);
                awaitQuietHeartbeats(counter, period);
                return new ScaleResult(
                        "Lock Client",
                        count,
                        lease,
                        Duration.ofNanos(period),
                        acquireSeconds,
                        threads.values().stream().mapToInt(Integer::intValue).sum(),
                        threads,
                        heartbeatThreads,
                        (heapAfter - heapBefore) / (double) count,
                        lateness.all(),
                        lateness.steady(),
                        (int) Math.max(failures, count - stillHeld),
                        lateness.renewals());
            } finally {
                peer.close();
                engine.deleteTable(table);
            }
        }
    }
}
