package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Scenario 1, requests: the DynamoDB requests of one uncontended acquire + release, counted with a {@link
 * RequestCounter}, with the libraries alternating in rounds on the same dynalite. The latency and throughput of the
 * same cycle come from JMH ({@link JmhRunner}).
 */
public final class CycleCounts {

    private static final Duration LEASE = AcquireReleaseBenchmark.LEASE;

    private final DynamoDbEngine engine;
    private final String oursTable;
    private final String peerTable;
    private final int rounds;
    private final int cyclesPerRound;

    /**
     * Sets the scenario up.
     *
     * @param engine the engine
     * @param oursTable LockTable's table
     * @param peerTable the peer's table
     * @param rounds how many alternating rounds
     * @param cyclesPerRound cycles of each library per round
     */
    public CycleCounts(DynamoDbEngine engine, String oursTable, String peerTable, int rounds, int cyclesPerRound) {
        this.engine = engine;
        this.oursTable = oursTable;
        this.peerTable = peerTable;
        this.rounds = rounds;
        this.cyclesPerRound = cyclesPerRound;
    }

    /** What one library sent per cycle. */
    record PerCycle(String label, Counts counts, long cycles) {
        double requests() {
            return counts.total() / (double) cycles;
        }
    }

    /**
     * Runs the cycles.
     *
     * @return requests per cycle of LockTable, then of the peer
     */
    public List<PerCycle> run() {
        RequestCounter oursCounter = RequestCounter.create();
        RequestCounter peerCounter = RequestCounter.create();
        try (DynamoDbClient oursClient = Engine.client(engine, oursCounter);
                DynamoDbClient peerClient = Engine.client(engine, peerCounter);
                OursDriver ours = new OursDriver(oursClient, oursTable, LEASE);
                PeerDriver peer = PeerDriver.defaults(peerClient, peerTable)) {
            String oursName = "cycle-" + UUID.randomUUID();
            String peerName = "cycle-" + UUID.randomUUID();
            cycles(ours, oursName, cyclesPerRound);
            cycles(peer, peerName, cyclesPerRound);
            oursCounter.reset();
            peerCounter.reset();
            for (int round = 0; round < rounds; round++) {
                if (round % 2 == 0) {
                    cycles(ours, oursName, cyclesPerRound);
                    cycles(peer, peerName, cyclesPerRound);
                } else {
                    cycles(peer, peerName, cyclesPerRound);
                    cycles(ours, oursName, cyclesPerRound);
                }
            }
            long total = (long) rounds * cyclesPerRound;
            List<PerCycle> result = new ArrayList<>();
            result.add(new PerCycle("LockTable", oursCounter.snapshot(), total));
            result.add(new PerCycle("Lock Client (defaults)", peerCounter.snapshot(), total));
            return result;
        }
    }

    private static <H> void cycles(LockDriver<H> driver, String name, int count) {
        for (int i = 0; i < count; i++) {
            H held = driver.tryAcquire(name);
            if (held == null) {
                throw new IllegalStateException(driver.label() + ": uncontended lock " + name + " was busy");
            }
            driver.release(held);
        }
    }
}
