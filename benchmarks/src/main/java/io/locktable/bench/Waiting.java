package io.locktable.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What holding a lock costs, what waiting for a live holder costs (requests counted per lock key), and how fast a
 * waiter of the same JVM gets a released lock.
 */
final class Waiting {

    /** One library with one setting; LockTable renews and polls every third of the lease, the peer as set. */
    record Setup(
            String id, String label, String kind, Duration lease, double renewalsPerMinute, double pollsPerMinute) {
        static Setup ours(long leaseSeconds) {
            double perMinute = 3 * 60.0 / leaseSeconds;
            return new Setup(
                    "ours" + leaseSeconds,
                    "LockTable, lease " + leaseSeconds + " s",
                    "locktable",
                    Duration.ofSeconds(leaseSeconds),
                    perMinute,
                    perMinute);
        }
    }

    static final List<Setup> SETUPS = List.of(
            Setup.ours(30),
            Setup.ours(20),
            new Setup(
                    "peerDefaults",
                    "Lock Client defaults (lease 20 s, heartbeat 5 s, refresh 1 s)",
                    "peer-defaults",
                    Duration.ofSeconds(20),
                    12,
                    60),
            new Setup(
                    "peer30",
                    "Lock Client, lease 30 s, heartbeat 10 s (LockTable's setting), refresh 1 s",
                    "peer",
                    Duration.ofSeconds(30),
                    6,
                    60));

    /** Requests per minute of one setup at one round trip, one value per held lock or per waiter. */
    record Counts(
            String engine,
            Setup setup,
            int rtt,
            Stats holdWrites,
            Stats holdReads,
            Stats waitReads,
            Stats waitWrites,
            int stolen) {}

    /**
     * Runs every setup at every round trip at once, holding {@code locks} locks each with {@code waiters} of them
     * waited for, and counts one window.
     */
    static List<Counts> holdAndWait(Rig rig, List<Integer> roundTrips, int locks, int waiters, Duration window)
            throws InterruptedException {
        List<Running> running = new ArrayList<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            for (int rtt : roundTrips) {
                for (Setup setup : SETUPS) {
                    running.add(new Running(rig, setup, rtt, locks));
                }
            }
            for (Running r : running) {
                for (int i = 0; i < waiters; i++) {
                    String name = r.names.get(i);
                    r.waits.add(pool.submit(() -> r.waiter.acquire(name, Duration.ofHours(1))));
                }
            }
            Thread.sleep(3_000);
            running.forEach(r -> {
                r.holderCounter.reset();
                r.waiterCounter.reset();
            });
            Thread.sleep(window.toMillis());
            double minutes = window.toNanos() / 60e9;
            List<Counts> result = new ArrayList<>();
            for (Running r : running) {
                List<Double> hw = new ArrayList<>();
                List<Double> hr = new ArrayList<>();
                List<Double> wr = new ArrayList<>();
                List<Double> ww = new ArrayList<>();
                for (int i = 0; i < locks; i++) {
                    String key = r.holder.key(r.names.get(i));
                    hw.add(r.holderCounter.writes(key) / minutes);
                    hr.add(r.holderCounter.reads(key) / minutes);
                    if (i < waiters) {
                        wr.add(r.waiterCounter.reads(key) / minutes);
                        ww.add(r.waiterCounter.writes(key) / minutes);
                    }
                }
                int stolen = (int) r.waits.stream().filter(Future::isDone).count();
                result.add(new Counts(
                        rig.engine, r.setup, r.rtt, Stats.of(hw), Stats.of(hr), Stats.of(wr), Stats.of(ww), stolen));
            }
            return result;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
            running.forEach(Running::close);
        }
    }

    /** One setup while it runs: a holder and a waiter, each on a client of its own with a counter. */
    private static final class Running {
        final Setup setup;
        final int rtt;
        final Counter holderCounter = new Counter();
        final Counter waiterCounter = new Counter();
        final DynamoDbClient holderClient;
        final DynamoDbClient waiterClient;
        final Lib holder;
        final Lib waiter;
        final List<String> names = new ArrayList<>();
        final List<Object> held = new ArrayList<>();
        final List<Future<Object>> waits = new ArrayList<>();

        Running(Rig rig, Setup setup, int rtt, int locks) {
            this.setup = setup;
            this.rtt = rtt;
            String table = setup.kind().equals("locktable") ? rig.oursTable : rig.peerTable;
            holderClient = Rig.client(rig.at(rtt), holderCounter);
            waiterClient = Rig.client(rig.at(rtt), waiterCounter);
            holder = Lib.of(setup.kind(), holderClient, table, setup.lease());
            waiter = Lib.of(setup.kind(), waiterClient, table, setup.lease());
            String prefix = "hold-" + UUID.randomUUID().toString().substring(0, 8) + "-";
            for (int i = 0; i < locks; i++) {
                names.add(prefix + i);
                held.add(holder.mustAcquire(prefix + i));
            }
        }

        void close() {
            held.forEach(h -> {
                try {
                    holder.release(h);
                } catch (RuntimeException e) {
                    // it ends with its lease
                }
            });
            holder.close();
            waiter.close();
            holderClient.close();
            waiterClient.close();
        }
    }

    /**
     * A lease released while another thread of the same library instance waits for it: the time from the release's
     * return to the waiter's acquire returning. {@code pairs} handovers run side by side per round, each on its own
     * lock.
     *
     * @return the handover times in nanoseconds
     */
    static List<Long> handover(Rig rig, int rtt, String kind, int pairs, int rounds) throws Exception {
        List<Long> times = new ArrayList<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        try (DynamoDbClient client = Rig.client(rig.at(rtt));
                Lib lib = Lib.of(
                        kind,
                        client,
                        kind.equals("locktable") ? rig.oursTable : rig.peerTable,
                        Duration.ofSeconds(20))) {
            lib.release(lib.mustAcquire("warm-" + UUID.randomUUID()));
            for (int round = 0; round < rounds; round++) {
                List<Object> holders = new ArrayList<>();
                List<Future<Long>> waiters = new ArrayList<>();
                for (int i = 0; i < pairs; i++) {
                    String name = "handover-" + UUID.randomUUID();
                    holders.add(lib.mustAcquire(name));
                    waiters.add(pool.submit(() -> {
                        Object got = lib.acquire(name, Duration.ofSeconds(30));
                        long at = System.nanoTime();
                        if (got == null) {
                            throw new IllegalStateException("no handover of " + name);
                        }
                        lib.release(got);
                        return at;
                    }));
                }
                Stats.sleep(150 + 3L * rtt); // every waiter has read the lock and waits
                long[] released = new long[pairs];
                for (int i = 0; i < pairs; i++) {
                    lib.release(holders.get(i));
                    released[i] = System.nanoTime();
                }
                for (int i = 0; i < pairs; i++) {
                    times.add(waiters.get(i).get() - released[i]);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return times;
    }
}
