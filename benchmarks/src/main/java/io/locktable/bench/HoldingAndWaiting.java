package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Scenarios 2 and 3: what holding a lock costs, and what a contender waiting for a live holder costs. Each setup
 * holds some locks and has contenders wait on a few of them, each side on a client of its own with a {@link
 * RequestCounter} by lock key; every setup runs at once, and the requests are counted in consecutive windows whose
 * length (60 s) is a whole number of every renewal and heartbeat period used.
 */
public final class HoldingAndWaiting {

    /**
     * One library with one setting, holding and waiting.
     *
     * @param label for the report
     * @param peer whether it is the peer (its table and key)
     * @param lease the lease the holder writes
     * @param renewEvery how often the holder renews or heartbeats
     * @param factory builds a driver over a client and table
     */
    public record Setup(
            String label,
            boolean peer,
            Duration lease,
            Duration renewEvery,
            BiFunction<DynamoDbClient, String, LockDriver<?>> factory) {}

    /**
     * The measured requests per minute of one setup.
     *
     * @param setup the setup
     * @param holdWrites writes per held lock per minute, one value per lock and window
     * @param holdReads reads per held lock per minute
     * @param waitReads reads per waiting contender per minute
     * @param waitWrites writes per waiting contender per minute
     * @param acquiredWhileHeld contenders that got a lock whose holder was alive (should be none)
     */
    public record Result(
            Setup setup,
            Summary holdWrites,
            Summary holdReads,
            Summary waitReads,
            Summary waitWrites,
            int acquiredWhileHeld) {}

    private final DynamoDbEngine engine;
    private final String oursTable;
    private final String peerTable;
    private final int locks;
    private final int waiters;
    private final int windows;
    private final Duration window;

    /**
     * Sets the scenario up.
     *
     * @param engine the engine
     * @param oursTable LockTable's table
     * @param peerTable the peer's table
     * @param locks locks held per setup
     * @param waiters contenders per setup, each on a different held lock
     * @param windows counting windows
     * @param window the length of a window
     */
    public HoldingAndWaiting(
            DynamoDbEngine engine,
            String oursTable,
            String peerTable,
            int locks,
            int waiters,
            int windows,
            Duration window) {
        this.engine = engine;
        this.oursTable = oursTable;
        this.peerTable = peerTable;
        this.locks = locks;
        this.waiters = waiters;
        this.windows = windows;
        this.window = window;
    }

    /**
     * The four setups: LockTable at a 30 s lease and at the peer's default 20 s, the peer at its defaults and the
     * peer with LockTable's 30 s setting.
     *
     * @return the setups
     */
    public static List<Setup> setups() {
        Duration thirty = Duration.ofSeconds(30);
        Duration twenty = Duration.ofSeconds(20);
        return List.of(
                new Setup(
                        "LockTable, lease 30 s",
                        false,
                        thirty,
                        thirty.dividedBy(3),
                        (c, t) -> new OursDriver(c, t, thirty)),
                new Setup(
                        "LockTable, lease 20 s",
                        false,
                        twenty,
                        twenty.dividedBy(3),
                        (c, t) -> new OursDriver(c, t, twenty)),
                new Setup(
                        "Lock Client defaults (lease 20 s, heartbeat 5 s, refresh 1 s)",
                        true,
                        PeerDriver.DEFAULT_LEASE,
                        PeerDriver.DEFAULT_HEARTBEAT,
                        PeerDriver::defaults),
                new Setup(
                        "Lock Client, lease 30 s, heartbeat 10 s (LockTable's setting), refresh 1 s",
                        true,
                        thirty,
                        thirty.dividedBy(3),
                        (c, t) -> PeerDriver.sameAsOurs(c, t, thirty)));
    }

    /**
     * Runs every setup at once.
     *
     * @return one result per setup
     * @throws InterruptedException if interrupted
     */
    public List<Result> run() throws InterruptedException {
        List<Running> running = new ArrayList<>();
        ExecutorService waiting = Executors.newCachedThreadPool();
        try {
            for (Setup setup : setups()) {
                running.add(new Running(setup, setup.peer() ? peerTable : oursTable));
            }
            for (Running r : running) {
                r.hold();
            }
            for (Running r : running) {
                r.startWaiting(waiting);
            }
            Thread.sleep(3_000);
            for (int w = 0; w < windows; w++) {
                running.forEach(Running::reset);
                Thread.sleep(window.toMillis());
                running.forEach(Running::count);
            }
            waiting.shutdownNow();
            waiting.awaitTermination(30, TimeUnit.SECONDS);
            List<Result> results = new ArrayList<>();
            for (Running r : running) {
                results.add(r.result());
            }
            return results;
        } finally {
            waiting.shutdownNow();
            running.forEach(Running::close);
        }
    }

    /** One setup while it runs. */
    private final class Running {
        private final Setup setup;
        private final String prefix = "hold-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        private final RequestCounter holderCounter = RequestCounter.perKey();
        private final RequestCounter waiterCounter = RequestCounter.perKey();
        private final DynamoDbClient holderClient;
        private final DynamoDbClient waiterClient;
        private final LockDriver<Object> holder;
        private final LockDriver<Object> waiter;
        private final List<Object> held = new ArrayList<>();
        private final List<Future<Object>> waits = new ArrayList<>();
        private final List<Double> holdWrites = new ArrayList<>();
        private final List<Double> holdReads = new ArrayList<>();
        private final List<Double> waitReads = new ArrayList<>();
        private final List<Double> waitWrites = new ArrayList<>();

        @SuppressWarnings("unchecked")
        Running(Setup setup, String table) {
            this.setup = setup;
            this.holderClient = Engine.client(engine, holderCounter);
            this.waiterClient = Engine.client(engine, waiterCounter);
            this.holder = (LockDriver<Object>) setup.factory().apply(holderClient, table);
            this.waiter = (LockDriver<Object>) setup.factory().apply(waiterClient, table);
        }

        void hold() {
            for (int i = 0; i < locks; i++) {
                Object lease = holder.tryAcquire(prefix + i);
                if (lease == null) {
                    throw new IllegalStateException(setup.label() + ": could not take free lock " + prefix + i);
                }
                held.add(lease);
            }
        }

        void startWaiting(ExecutorService executor) {
            for (int i = 0; i < waiters; i++) {
                String name = prefix + i;
                waits.add(executor.submit(() -> waiter.acquire(name, Duration.ofHours(1))));
            }
        }

        void reset() {
            holderCounter.reset();
            waiterCounter.reset();
        }

        void count() {
            double minutes = window.toNanos() / 60e9;
            for (int i = 0; i < locks; i++) {
                Counts counts = holderCounter.snapshot(key(prefix + i));
                holdWrites.add(counts.writes() / minutes);
                holdReads.add(counts.reads() / minutes);
            }
            for (int i = 0; i < waiters; i++) {
                Counts counts = waiterCounter.snapshot(key(prefix + i));
                waitReads.add(counts.reads() / minutes);
                waitWrites.add(counts.writes() / minutes);
            }
        }

        private String key(String name) {
            return setup.peer() ? name : "LOCK#" + name;
        }

        Result result() {
            int acquired = 0;
            for (Future<Object> wait : waits) {
                if (wait.isDone() && !wait.isCancelled()) {
                    try {
                        if (wait.get() != null) {
                            acquired++;
                        }
                    } catch (Exception e) {
                        // interrupted at the end, as intended
                    }
                }
            }
            return new Result(
                    setup,
                    Summary.of(holdWrites),
                    Summary.of(holdReads),
                    Summary.of(waitReads),
                    Summary.of(waitWrites),
                    acquired);
        }

        void close() {
            for (Object lease : held) {
                try {
                    holder.release(lease);
                } catch (RuntimeException e) {
                    // reported by the counts; closing goes on
                }
            }
            holder.close();
            waiter.close();
            holderClient.close();
            waiterClient.close();
        }
    }
}
