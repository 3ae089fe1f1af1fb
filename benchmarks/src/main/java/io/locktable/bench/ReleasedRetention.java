package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A finding beside scenario 5: heap that stays reachable after leases were released. Each library runs many
 * acquire + release cycles on one lock with nothing held at the end; the heap after full collections, minus before,
 * divided by the cycles, is what each released lease leaves behind until its timers run out.
 */
public final class ReleasedRetention {

    /** The lease of the cycles: long enough that nothing scheduled for a released lease runs out meanwhile. */
    static final Duration LEASE = Duration.ofSeconds(60);

    private final DynamoDbEngine engine;
    private final String oursTable;
    private final String peerTable;

    /**
     * Sets the measurement up.
     *
     * @param engine the engine
     * @param oursTable LockTable's table
     * @param peerTable the peer's table
     */
    public ReleasedRetention(DynamoDbEngine engine, String oursTable, String peerTable) {
        this.engine = engine;
        this.oursTable = oursTable;
        this.peerTable = peerTable;
    }

    /**
     * Bytes left reachable per released lease.
     *
     * @param library the library and its setting
     * @param cycles acquire + release cycles
     * @param bytesPerCycle heap still reachable afterwards, per cycle
     */
    public record Result(String library, int cycles, double bytesPerCycle) {}

    /**
     * Measures LockTable.
     *
     * @param cycles how many cycles
     * @return the figures
     */
    public Result ours(int cycles) {
        try (DynamoDbClient client = Engine.client(engine);
                OursDriver driver = new OursDriver(client, oursTable, LEASE)) {
            return measure(driver, cycles);
        }
    }

    /**
     * Measures the peer with the same lease.
     *
     * @param cycles how many cycles
     * @return the figures
     */
    public Result peer(int cycles) {
        try (DynamoDbClient client = Engine.client(engine);
                PeerDriver driver = PeerDriver.sameAsOurs(client, peerTable, LEASE)) {
            return measure(driver, cycles);
        }
    }

    private static <H> Result measure(LockDriver<H> driver, int cycles) {
        String name = "retention-" + UUID.randomUUID();
        for (int i = 0; i < 200; i++) {
            driver.release(driver.tryAcquire(name));
        }
        long before = Machine.usedHeapAfterGc();
        for (int i = 0; i < cycles; i++) {
            driver.release(driver.tryAcquire(name));
        }
        long after = Machine.usedHeapAfterGc();
        return new Result(driver.label(), cycles, (after - before) / (double) cycles);
    }
}
