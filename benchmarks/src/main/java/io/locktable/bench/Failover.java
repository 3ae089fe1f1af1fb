package io.locktable.bench;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * How long a contender waits for a lock whose holder, in another JVM, is killed with SIGKILL or releases it. In
 * each round every case runs at the same time, each with its own child and lock, so the libraries meet the same
 * load. The stop comes at least a second, plus a random part of a renewal period, after the contender started to
 * wait. Children of graceful rounds hold again in the next round; a kill takes a new child.
 */
final class Failover {

    /** One library and lease, through one proxy. */
    record Case(String label, Rig rig, int rtt, String kind, Duration lease, Duration renewEvery, Duration pollAtMost) {
        String table() {
            return kind.equals("locktable") ? rig.oursTable : rig.peerTable;
        }

        boolean ours() {
            return kind.equals("locktable");
        }
    }

    static Case ours(Rig rig, int rtt, long leaseSeconds) {
        Duration lease = Duration.ofSeconds(leaseSeconds);
        Duration poll =
                lease.dividedBy(3).compareTo(Duration.ofSeconds(10)) < 0 ? lease.dividedBy(3) : Duration.ofSeconds(10);
        return new Case(
                "LockTable, lease " + leaseSeconds + " s",
                rig,
                rtt,
                "locktable",
                lease,
                lease.dividedBy(3),
                poll.plus(poll.dividedBy(10))); // lock-core's poll adds up to a tenth of jitter
    }

    static Case peer(Rig rig, int rtt, long leaseSeconds) {
        Duration lease = Duration.ofSeconds(leaseSeconds);
        return new Case(
                "Lock Client, lease " + leaseSeconds + " s, heartbeat " + Stats.duration(lease.dividedBy(3)),
                rig,
                rtt,
                "peer",
                lease,
                lease.dividedBy(3),
                Lib.PEER_REFRESH);
    }

    static Case peerDefaults(Rig rig, int rtt) {
        return new Case(
                "Lock Client defaults (lease 20 s, heartbeat 5 s)",
                rig,
                rtt,
                "peer-defaults",
                Lib.PEER_LEASE,
                Lib.PEER_HEARTBEAT,
                Lib.PEER_REFRESH);
    }

    /** Runs the rounds of one kind of stop; returns the takeover times in nanoseconds of each case. */
    static Map<Case, List<Long>> run(List<Case> cases, boolean crash, int rounds, Path errors) throws Exception {
        Map<Case, List<Long>> times = new LinkedHashMap<>();
        Map<URI, DynamoDbClient> clients = new HashMap<>();
        Map<Case, Lib> contenders = new LinkedHashMap<>();
        for (Case c : cases) {
            times.put(c, new ArrayList<>());
            DynamoDbClient client = clients.computeIfAbsent(c.rig().at(c.rtt()), Rig::client);
            contenders.put(c, Lib.of(c.kind(), client, c.table(), c.lease()));
        }
        ExecutorService pool = Executors.newCachedThreadPool();
        List<ChildJvm.Handle> children = new ArrayList<>();
        try {
            for (int round = 0; round < rounds; round++) {
                if (children.isEmpty()) {
                    cases.forEach(c -> children.add(ChildJvm.Handle.start(errors, "128m", "holder")));
                }
                List<Future<Long>> trials = new ArrayList<>();
                for (int i = 0; i < cases.size(); i++) {
                    Case c = cases.get(i);
                    ChildJvm.Handle child = children.get(i);
                    trials.add(pool.submit(() -> trial(c, child, contenders.get(c), crash, pool)));
                }
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < cases.size(); i++) {
                    long took = trials.get(i).get();
                    times.get(cases.get(i)).add(took);
                    line.append(cases.get(i).kind())
                            .append('@')
                            .append(cases.get(i).rtt())
                            .append(' ');
                    line.append(Stats.seconds(took)).append("; ");
                }
                Stats.log("  " + (crash ? "kill -9" : "release") + " round " + (round + 1) + ": " + line);
                if (crash) {
                    children.forEach(ChildJvm.Handle::close);
                    children.clear();
                }
            }
        } finally {
            children.forEach(ChildJvm.Handle::close);
            pool.shutdownNow();
            contenders.values().forEach(Lib::close);
            clients.values().forEach(DynamoDbClient::close);
        }
        return times;
    }

    private static long trial(Case c, ChildJvm.Handle child, Lib contender, boolean crash, ExecutorService pool)
            throws Exception {
        String name = "failover-" + UUID.randomUUID();
        String answer = child.ask(String.join(
                " ",
                "hold",
                c.kind(),
                c.rig().at(c.rtt()).toString(),
                c.table(),
                name,
                Long.toString(c.lease().toMillis())));
        if (!answer.equals("HELD")) {
            throw new IllegalStateException(c.label() + ": the child said " + answer);
        }
        Future<Long> acquired = pool.submit(() -> {
            Object held = contender.acquire(name, c.lease().multipliedBy(4).plusSeconds(30));
            long at = System.nanoTime();
            if (held == null) {
                throw new IllegalStateException(c.label() + ": the contender timed out");
            }
            contender.release(held);
            return at;
        });
        Stats.sleep(1_000 + ThreadLocalRandom.current().nextLong(c.renewEvery().toMillis()));
        if (acquired.isDone()) {
            acquired.get(); // throws what the contender met
            throw new IllegalStateException(c.label() + ": the contender got the lock of a live holder");
        }
        long stopped = System.nanoTime();
        if (crash) {
            child.kill();
        } else {
            child.tell("release");
        }
        long took = acquired.get() - stopped;
        if (!crash && !child.answer().equals("RELEASED")) {
            throw new IllegalStateException(c.label() + ": the child did not release");
        }
        return took;
    }

    /** Adds the table {@code failover-ENGINE} and the metrics of LockTable's bounds. */
    static void report(String engine, Map<Case, List<Long>> crash, Map<Case, List<Long>> graceful, Report report) {
        List<List<String>> rows = new ArrayList<>();
        double crashWorst = 0;
        double gracefulWorst = 0;
        for (Case c : crash.keySet()) {
            Stats killed = Stats.of(crash.get(c));
            Stats released = Stats.of(graceful.get(c));
            if (c.ours()) {
                crashWorst = Math.max(crashWorst, killed.max() / c.lease().toNanos());
                gracefulWorst = Math.max(
                        gracefulWorst,
                        (released.max() - 2 * c.rtt() * 1e6) / c.pollAtMost().toNanos());
            }
            rows.add(List.of(
                    c.label(),
                    c.rtt() + " ms",
                    killed.range(1e9) + " s",
                    c.ours() ? Stats.duration(c.lease().multipliedBy(1433).dividedBy(1000)) : "—",
                    released.range(1e9) + " s",
                    Stats.duration(c.pollAtMost())));
        }
        report.table(
                "failover-" + engine,
                List.of(
                        "case",
                        "round trip",
                        "after kill -9",
                        "LockTable's bound (lease × 1.433)",
                        "after a release",
                        "the contender reads at least every"),
                rows);
        report.metric("failover.crash." + engine, crashWorst, "worst " + Stats.num(crashWorst) + " × the lease");
        report.metric(
                "failover.graceful." + engine,
                gracefulWorst,
                "worst " + Stats.num(gracefulWorst) + " × the poll period (beyond 3 round trips)");
    }
}
