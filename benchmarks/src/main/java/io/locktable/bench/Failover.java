package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Scenario 4: how long a waiting contender takes to get a lock after its holder, in another JVM, is killed with
 * SIGKILL or releases it. In each round every case runs once, all cases at the same time (each on its own lock and
 * child JVM), so the libraries meet the same machine load. The kill or release comes at a random point of the
 * holder's renewal period, at least a second after the contender started waiting.
 */
public final class Failover {

    /**
     * One library and lease.
     *
     * @param label for the report
     * @param library the child's library argument
     * @param peer whether it is the peer
     * @param lease the lease
     * @param renewEvery the holder's renewal or heartbeat period
     * @param pollEvery how often the contender reads
     * @param pollAtMost the longest pause between two reads of the contender, jitter included
     */
    public record Case(
            String label,
            String library,
            boolean peer,
            Duration lease,
            Duration renewEvery,
            Duration pollEvery,
            Duration pollAtMost) {}

    private static final Duration PEER_REFRESH = Duration.ofSeconds(1);

    private final DynamoDbEngine engine;
    private final String oursTable;
    private final String peerTable;
    private final int rounds;
    private final Path childErrors;

    /**
     * Sets the scenario up.
     *
     * @param engine the engine
     * @param oursTable LockTable's table
     * @param peerTable the peer's table
     * @param rounds rounds per kind of stop
     * @param childErrors where the children's standard error goes
     */
    public Failover(DynamoDbEngine engine, String oursTable, String peerTable, int rounds, Path childErrors) {
        this.engine = engine;
        this.oursTable = oursTable;
        this.peerTable = peerTable;
        this.rounds = rounds;
        this.childErrors = childErrors;
    }

    /**
     * LockTable and the peer at leases of 3 s and 10 s, and the peer at its defaults.
     *
     * @return the cases
     */
    public static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (long seconds : new long[] {3, 10}) {
            Duration lease = Duration.ofSeconds(seconds);
            cases.add(new Case(
                    "LockTable, lease " + seconds + " s",
                    "locktable",
                    false,
                    lease,
                    lease.dividedBy(3),
                    poll(lease),
                    poll(lease).plus(poll(lease).dividedBy(10))));
            cases.add(new Case(
                    "Lock Client, lease " + seconds + " s, heartbeat " + Format.duration(lease.dividedBy(3)),
                    "peer",
                    true,
                    lease,
                    lease.dividedBy(3),
                    PEER_REFRESH,
                    PEER_REFRESH));
        }
        cases.add(new Case(
                "Lock Client defaults (lease 20 s, heartbeat 5 s)",
                "peer-defaults",
                true,
                PeerDriver.DEFAULT_LEASE,
                PeerDriver.DEFAULT_HEARTBEAT,
                PEER_REFRESH,
                PEER_REFRESH));
        return cases;
    }

    /**
     * Runs the rounds of one kind of stop.
     *
     * @param crash true to kill the holder, false to have it release
     * @return the failover times in nanoseconds of each case
     * @throws InterruptedException if interrupted
     */
    public Map<Case, List<Long>> run(boolean crash) throws InterruptedException {
        Map<Case, List<Long>> times = new LinkedHashMap<>();
        List<Case> cases = cases();
        cases.forEach(c -> times.put(c, new ArrayList<>()));
        ExecutorService executor = Executors.newCachedThreadPool();
        try (DynamoDbClient client = Engine.client(engine)) {
            Map<Case, LockDriver<Object>> contenders = new LinkedHashMap<>();
            for (Case c : cases) {
                contenders.put(c, contender(c, client));
            }
            try {
                for (int round = 0; round < rounds; round++) {
                    List<CompletableFuture<Long>> trials = new ArrayList<>();
                    for (Case c : cases) {
                        trials.add(CompletableFuture.supplyAsync(
                                () -> trial(c, contenders.get(c), crash, executor), executor));
                    }
                    for (int i = 0; i < cases.size(); i++) {
                        times.get(cases.get(i)).add(trials.get(i).join());
                    }
                    System.out.printf(
                            "  failover (%s) round %d: %s%n",
                            crash ? "kill -9" : "release", round + 1, lastTimes(times));
                }
            } finally {
                contenders.values().forEach(LockDriver::close);
            }
        } finally {
            executor.shutdownNow();
            executor.awaitTermination(30, TimeUnit.SECONDS);
        }
        return times;
    }

    private static String lastTimes(Map<Case, List<Long>> times) {
        List<String> parts = new ArrayList<>();
        times.forEach((c, list) -> parts.add(
                c.library() + "/" + Format.duration(c.lease()) + " " + Format.seconds(list.get(list.size() - 1))));
        return String.join(", ", parts);
    }

    @SuppressWarnings("unchecked")
    private LockDriver<Object> contender(Case c, DynamoDbClient client) {
        LockDriver<?> driver = switch (c.library()) {
            case "locktable" -> new OursDriver(client, oursTable, c.lease());
            case "peer" -> PeerDriver.sameAsOurs(client, peerTable, c.lease());
            default -> PeerDriver.defaults(client, peerTable);
        };
        return (LockDriver<Object>) driver;
    }

    private long trial(Case c, LockDriver<Object> contender, boolean crash, ExecutorService executor) {
        String name = "failover-" + UUID.randomUUID();
        String table = c.peer() ? peerTable : oursTable;
        try (ChildHolder child = ChildHolder.start(
                c.library(),
                engine.endpoint().toString(),
                table,
                name,
                c.lease().toMillis(),
                childErrors)) {
            Duration maxWait = c.lease().multipliedBy(4).plusSeconds(30);
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            Object held = contender.acquire(name, maxWait);
                            long at = System.nanoTime();
                            if (held == null) {
                                throw new IllegalStateException(c.label() + ": contender timed out on " + name);
                            }
                            contender.release(held);
                            return at;
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted", e);
                        }
                    },
                    executor);
            long renewal = c.renewEvery().toMillis();
            Machine.sleep(1_000 + ThreadLocalRandom.current().nextLong(renewal));
            if (acquiredAt.isDone()) {
                throw new IllegalStateException(c.label() + ": contender got " + name + " while its holder was alive");
            }
            long stoppedAt = System.nanoTime();
            if (crash) {
                child.kill();
            } else {
                child.askToRelease();
            }
            return acquiredAt.join() - stoppedAt;
        }
    }

    /**
     * LockTable's poll period for a holder's lease: a third of it, at most 10 s. Its pause adds up to a tenth of
     * jitter (lock-core's {@code LockTable.pollPause}), which {@link Case#pollAtMost()} includes.
     */
    private static Duration poll(Duration lease) {
        Duration third = lease.dividedBy(3);
        Duration cap = Duration.ofSeconds(10);
        return third.compareTo(cap) <= 0 ? third : cap;
    }
}
