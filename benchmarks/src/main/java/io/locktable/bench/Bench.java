package io.locktable.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import software.amazon.awssdk.core.util.VersionInfo;

/**
 * Runs every scenario and writes the tables of {@code docs/benchmarks.md}. Started by {@code benchmarks/run.sh};
 * arguments: {@code [--quick] [--out FILE] [--command TEXT] [--scale-max N] [--only PHASE,...]} with the phases
 * {@code requests, latency, handover, failover, scale, slow, released, waiters, cpu} ({@code released} runs with
 * {@code failover}, or alone). A run of some phases rewrites only their tables, the goals they measure and a line of the
 * {@code run} table, and leaves the rest of the document as it was.
 */
public final class Bench {

    /** DynamoDB on-demand prices, US East (N. Virginia), USD per million request units. */
    static final double WRITE_PRICE = 0.625;

    static final double READ_PRICE = 0.125;

    /** How much of each scenario a run does. */
    record Plan(
            String name,
            List<Integer> roundTrips,
            int headlineRtt,
            List<Integer> threads,
            int jmhRounds,
            Cycle.Settings jmh,
            int countCycles,
            int holdLocks,
            int waiters,
            Duration window,
            int handoverPairs,
            int handoverRounds,
            int failoverRounds,
            int scale,
            int scaleMax,
            int retentionCycles,
            int slowLeases,
            int asyncWaiters,
            int blockingWaiters,
            int waiterLocks,
            Duration waitersWindow,
            int sameTableRounds) {

        static Plan full(int scaleMax) {
            return new Plan(
                    "full",
                    List.of(0, 2, 5, 10),
                    5,
                    List.of(1, 8),
                    3,
                    new Cycle.Settings(2, 1, 3, 2),
                    100,
                    5,
                    3,
                    Duration.ofSeconds(60),
                    5,
                    4,
                    3,
                    10_000,
                    scaleMax,
                    10_000,
                    1_000,
                    10_000,
                    1_000,
                    5,
                    Duration.ofSeconds(30),
                    3);
        }

        static Plan quick() {
            return new Plan(
                    "quick",
                    List.of(0, 5),
                    5,
                    List.of(1, 8),
                    1,
                    new Cycle.Settings(1, 1, 1, 1),
                    10,
                    2,
                    1,
                    Duration.ofSeconds(20),
                    5,
                    2,
                    1,
                    500,
                    1_000,
                    500,
                    100,
                    500,
                    100,
                    2,
                    Duration.ofSeconds(10),
                    2);
        }
    }

    private Bench() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("docs", "benchmarks.md");
        String command = "./benchmarks/run.sh";
        boolean quick = false;
        int scaleMax = 100_000;
        Set<String> only = Set.of();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(args[++i]);
                case "--command" -> command = args[++i];
                case "--scale-max" -> scaleMax = Integer.parseInt(args[++i]);
                case "--only" -> only = Set.of(args[++i].split(","));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Plan plan = quick ? Plan.quick() : Plan.full(scaleMax);
        Path work = Files.createDirectories(Path.of("benchmarks", "target", "bench"));
        Path errors = work.resolve("children.log");
        Files.deleteIfExists(errors);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        double loadBefore = Stats.load();
        Report report = new Report();
        Stats.log("starting dynalite and moto with their proxies");
        try (Rig dynalite = Rig.start("dynalite", plan.roundTrips());
                Rig moto = only.equals(Set.of("cpu")) ? null : startMoto(plan)) {
            Set<String> phases = only;
            Predicate<String> run = phase -> phases.isEmpty() || phases.contains(phase);
            if (run.test("requests")) {
                Stats.log("requests per acquire + release");
                List<List<String>> requests = new ArrayList<>();
                Cycle.requests(dynalite, plan.roundTrips(), plan.countCycles(), report, requests);
                if (moto != null) {
                    Cycle.requests(moto, List.of(plan.headlineRtt()), plan.countCycles(), report, requests);
                }
                report.table(
                        "requests",
                        List.of(
                                "engine",
                                "library",
                                "round trips",
                                "requests per cycle",
                                "by operation",
                                "ms per cycle (one thread)",
                                "ms per request on the wire",
                                "client CPU µs per cycle"),
                        requests);
            }
            if (run.test("latency")) {
                Stats.log("acquire + release latency (JMH; its log: " + work.resolve("jmh.log") + ")");
                Cycle.latency(dynalite, plan, report, work.resolve("jmh.log"));
            }
            if (run.test("handover")) {
                Stats.log("handover to a waiter of the same JVM");
                handover(dynalite, plan, report);
            }
            if (run.test("failover")) {
                Stats.log("holding and waiting (in the background), released leases (a child), failover");
                CompletableFuture<List<Waiting.Counts>> counts = background(() -> {
                    List<Waiting.Counts> all = new ArrayList<>(Waiting.holdAndWait(
                            dynalite, plan.roundTrips(), plan.holdLocks(), plan.waiters(), plan.window()));
                    if (moto != null) {
                        all.addAll(Waiting.holdAndWait(
                                moto, List.of(plan.headlineRtt()), plan.holdLocks(), plan.waiters(), plan.window()));
                    }
                    return all;
                });
                CompletableFuture<List<String>> retained = background(() -> retention(dynalite, plan, errors));
                failover(dynalite, moto, plan, report, errors);
                holdingReport(counts.join(), report);
                retentionReport(retained.join(), report);
            }
            if (!phases.isEmpty() && phases.contains("released") && !phases.contains("failover")) {
                Stats.log("released leases (a child)");
                retentionReport(retention(dynalite, plan, errors), report);
            }
            if (run.test("scale")) {
                Stats.log("scale");
                scale(dynalite, plan, report, errors);
            }
            if (run.test("slow")) {
                Stats.log("slow engine");
                slow(dynalite, plan, report, errors);
            }
            if (run.test("waiters")) {
                Stats.log("waiting without threads (children)");
                waiters(dynalite, plan, report, errors);
            }
            if (run.test("cpu")) {
                Stats.log("each library's own CPU and allocation, over canned answers; the engine's CPU per cycle"
                        + " (JMH; its log: " + work.resolve("jmh.log") + ")");
                OwnCost.measure(dynalite, plan, report, work.resolve("jmh.log"));
            }
        }
        List<Report.Goal> goals = Report.goals(Files.readString(Path.of("benchmarks", "goals.properties")));
        List<Report.Goal> missed = report.verdicts(goals);
        Path template = Files.exists(out) ? out : Path.of("docs", "benchmarks.md");
        boolean partial = !only.isEmpty();
        int met = goals.size() - missed.size();
        if (partial) {
            // the other tables, and the goals this run did not measure, stay as the earlier run wrote them
            String earlier = Files.readString(template);
            met = report.keepUnmeasuredGoals(goals, Report.tableIn(earlier, "goals"));
            report.tables.put(
                    "run",
                    partialRunInfo(
                            Report.tableIn(earlier, "run"), command, only, started, loadBefore, met, goals.size()));
        } else {
            report.tables.put("run", runInfo(command, plan, started, loadBefore, met, goals.size()));
        }
        Set<String> unplaced = report.fill(template, out, partial);
        if (!unplaced.isEmpty()) {
            Stats.log("tables without a marker in " + template + ": " + unplaced);
        }
        Files.writeString(work.resolve("metrics.txt"), report.metrics.toString().replace(", ", "\n"));
        Stats.log("wrote " + out + "; goals met " + met + " of " + goals.size());
        System.exit(0);
    }

    private static Rig startMoto(Plan plan) {
        try {
            return Rig.start("moto", List.of(plan.headlineRtt()));
        } catch (RuntimeException e) {
            Stats.log("moto did not start, its scenarios are left out: " + e.getMessage());
            return null;
        }
    }

    private interface Job<T> {
        T run() throws Exception;
    }

    private static <T> CompletableFuture<T> background(Job<T> job) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(job.run());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    private static void handover(Rig rig, Plan plan, Report report) throws Exception {
        List<List<String>> rows = new ArrayList<>();
        double worst = 0;
        for (int rtt : plan.roundTrips()) {
            // LockTable's handovers one at a time, as they take milliseconds; the peer's side by side, as its waiter
            // reads once a second: the same number of each
            int count = plan.handoverPairs() * plan.handoverRounds();
            Stats ours = Stats.of(Waiting.handover(rig, rtt, "locktable", 1, count));
            Stats peer =
                    Stats.of(Waiting.handover(rig, rtt, "peer-defaults", plan.handoverPairs(), plan.handoverRounds()));
            worst = Math.max(worst, (ours.median() - rtt * 1e6) / 1e6);
            rows.add(List.of(
                    rtt + " ms",
                    Stats.ms(ours.median()),
                    Stats.ms(ours.max()),
                    Stats.ms(peer.median()),
                    Stats.ms(peer.max()),
                    ours.count() + " / " + peer.count()));
        }
        report.table(
                "handover",
                List.of(
                        "round trip",
                        "LockTable p50",
                        "LockTable max",
                        "Lock Client p50",
                        "Lock Client max",
                        "handovers"),
                rows);
        report.metric("handover.local", worst, "worst p50 " + Stats.num(worst) + " ms beyond one round trip");
    }

    private static void failover(Rig dynalite, Rig moto, Plan plan, Report report, Path errors) throws Exception {
        List<Failover.Case> cases = new ArrayList<>();
        for (int rtt : plan.roundTrips()) {
            cases.add(Failover.ours(dynalite, rtt, 3));
            cases.add(Failover.peer(dynalite, rtt, 3));
        }
        int at = plan.headlineRtt();
        cases.addAll(List.of(
                Failover.ours(dynalite, at, 10), Failover.peer(dynalite, at, 10), Failover.peerDefaults(dynalite, at)));
        if (moto != null) {
            cases.addAll(List.of(Failover.ours(moto, at, 3), Failover.peer(moto, at, 3)));
        }
        Map<Failover.Case, List<Long>> graceful = Failover.run(cases, false, plan.failoverRounds(), errors);
        Map<Failover.Case, List<Long>> crash = Failover.run(cases, true, plan.failoverRounds(), errors);
        for (Rig rig : moto == null ? List.of(dynalite) : List.of(dynalite, moto)) {
            Map<Failover.Case, List<Long>> c = new LinkedHashMap<>();
            Map<Failover.Case, List<Long>> g = new LinkedHashMap<>();
            crash.forEach((k, v) -> {
                if (k.rig() == rig) {
                    c.put(k, v);
                    g.put(k, graceful.get(k));
                }
            });
            Failover.report(rig.engine, c, g, report);
        }
    }

    private static void holdingReport(List<Waiting.Counts> counts, Report report) {
        List<List<String>> rows = new ArrayList<>();
        List<List<String>> cost = new ArrayList<>();
        Map<String, List<Waiting.Counts>> groups = new LinkedHashMap<>();
        counts.forEach(c -> groups.computeIfAbsent(c.engine() + "." + c.setup().id(), k -> new ArrayList<>())
                .add(c));
        groups.forEach((id, group) -> {
            Waiting.Setup s = group.get(0).setup();
            Function<ToDoubleFunction<Waiting.Counts>, String> across = f -> String.join(
                    " / ",
                    group.stream().map(c -> Stats.num(f.applyAsDouble(c))).toList());
            ToDoubleFunction<ToDoubleFunction<Waiting.Counts>> worst =
                    f -> group.stream().mapToDouble(f).max().orElse(Double.NaN);
            int stolen = group.stream().mapToInt(Waiting.Counts::stolen).sum();
            double perMinute = s.renewalsPerMinute();
            double pollsPerMinute = s.pollsPerMinute();
            rows.add(List.of(
                    group.get(0).engine(),
                    s.label(),
                    String.join(" / ", group.stream().map(c -> c.rtt() + " ms").toList()),
                    across.apply(c -> c.holdWrites().median()) + " (bound " + Stats.num(perMinute) + ")",
                    across.apply(c -> c.holdReads().max()),
                    across.apply(c -> c.waitReads().median()) + " (bound " + Stats.num(pollsPerMinute) + ")",
                    across.apply(c -> c.waitWrites().max()),
                    Integer.toString(stolen)));
            if (s.kind().equals("locktable")) {
                report.metric(
                        "holding." + id,
                        worst.applyAsDouble(c -> c.holdWrites().max()) / perMinute,
                        "max " + across.apply(c -> c.holdWrites().max()) + " writes/min, bound "
                                + Stats.num(perMinute));
                report.metric(
                        "holding.reads." + id,
                        worst.applyAsDouble(c -> c.holdReads().max()),
                        "max " + across.apply(c -> c.holdReads().max()) + " reads/min");
                report.metric(
                        "waiting." + id,
                        worst.applyAsDouble(c -> c.waitReads().max()) / pollsPerMinute,
                        "max " + across.apply(c -> c.waitReads().max()) + " reads/min, bound "
                                + Stats.num(pollsPerMinute));
                report.metric(
                        "waiting.writes." + id,
                        worst.applyAsDouble(c -> c.waitWrites().max()),
                        "max " + across.apply(c -> c.waitWrites().max()) + " writes/min");
                report.metric("stolen." + id, stolen, stolen + " taken from a live holder");
            }
            if (group.get(0).engine().equals("dynalite")) {
                double holdWrites = group.stream()
                                .mapToDouble(c -> c.holdWrites().median())
                                .average()
                                .orElse(Double.NaN)
                        * 60;
                double waitReads = group.stream()
                                .mapToDouble(c -> c.waitReads().median())
                                .average()
                                .orElse(Double.NaN)
                        * 60;
                cost.add(List.of(
                        s.label(),
                        Stats.num(holdWrites) + " writes",
                        "$" + Stats.num(holdWrites * 730 * WRITE_PRICE / 1e6),
                        Stats.num(waitReads) + " reads",
                        "$" + Stats.num(waitReads * 730 * READ_PRICE / 1e6)));
            }
        });
        report.table(
                "holding",
                List.of(
                        "engine",
                        "setup",
                        "round trips",
                        "writes / held lock / min (median)",
                        "reads / held lock / min (max)",
                        "reads / waiter / min (median)",
                        "writes / waiter / min (max)",
                        "waiters that took a live holder's lock"),
                rows);
        report.table(
                "cost",
                List.of(
                        "setup",
                        "holding: requests / lock-hour",
                        "holding: $ / lock-month (730 h)",
                        "waiting: requests / waiter-hour",
                        "waiting: $ / waiter-month"),
                cost);
        report.table(
                "cost-cycle",
                List.of("library", "requests per acquire + release", "$ per million cycles"),
                List.of(
                        List.of("LockTable", "2 writes", "$" + Stats.num(2 * WRITE_PRICE)),
                        List.of(
                                "Lock Client (defaults)",
                                "2 writes + 1 strongly consistent read",
                                "$" + Stats.num(2 * WRITE_PRICE + READ_PRICE))));
    }

    /** Both libraries' released leases, each in a child of its own, side by side. */
    private static List<String> retention(Rig rig, Plan plan, Path errors) throws Exception {
        List<ChildJvm.Handle> children = new ArrayList<>();
        try {
            for (String kind : List.of("locktable", "peer")) {
                children.add(ChildJvm.Handle.start(
                        errors,
                        "256m",
                        "retention",
                        "kind=" + kind,
                        "endpoint=" + rig.at(0),
                        "table=" + (kind.equals("locktable") ? rig.oursTable : rig.peerTable),
                        "cycles=" + plan.retentionCycles(),
                        "waitMs=65000"));
            }
            List<String> results = new ArrayList<>();
            for (ChildJvm.Handle child : children) {
                results.add(child.answer());
            }
            return results;
        } finally {
            children.forEach(ChildJvm.Handle::close);
        }
    }

    private static void retentionReport(List<String> results, Report report) {
        Map<String, String> ours = ChildJvm.parse(results.get(0));
        Map<String, String> peer = ChildJvm.parse(results.get(1));
        report.table(
                "released",
                List.of("library", "bytes per released lease, at once", "after 65 s"),
                List.of(
                        List.of("LockTable, lease 60 s", Stats.num(d(ours, "now")), Stats.num(d(ours, "later"))),
                        List.of(
                                "Lock Client, lease 60 s, heartbeat 20 s",
                                Stats.num(d(peer, "now")),
                                Stats.num(d(peer, "later")))));
        report.metric("released.later", d(ours, "later"), Stats.num(d(ours, "later")) + " bytes per released lease");
    }

    private static double d(Map<String, String> values, String key) {
        return Double.parseDouble(values.get(key));
    }

    private static void scale(Rig rig, Plan plan, Report report, Path errors) throws Exception {
        List<List<String>> rows = new ArrayList<>();
        int n = plan.scale();
        Duration lease = Duration.ofSeconds(60);
        int at = plan.headlineRtt();
        // two renewals each, and past the longest request timeout (60 s), so that the heap is the steady state's
        long observe = Math.max(2 * lease.toMillis() / 3 + 2_000, 65_000);
        Map<String, String> ours = scaleRun(rig, "locktable", rig.at(at).toString(), n, lease, 16, 0, observe, errors);
        scaleRow(rows, "LockTable", n, lease, at + " ms", true, ours);
        scaleMetrics(report, "scale.base", ours, lease);
        Map<String, String> peer = scaleRun(rig, "peer", rig.at(at).toString(), n, lease, 16, 0, observe, errors);
        scaleRow(rows, "Lock Client", n, lease, at + " ms", true, peer);
        // a client with an apiCallTimeout of its own: its SDK timeout threads run before LockTable sends anything
        Map<String, String> configured =
                scaleRun(rig, "locktable", rig.at(at).toString(), n, lease, 16, 0, observe, errors, 30_000);
        scaleRow(rows, "LockTable, client with apiCallTimeout 30 s", n, lease, at + " ms", true, configured);
        scaleMetrics(report, "scale.configured", configured, lease);
        if (plan.scaleMax() > n) {
            // the engine's pace: leases long enough that their renewals take half the rate it acquired at
            double acquiresPerSecond = n / d(ours, "acquireSeconds");
            int big = plan.scaleMax();
            Duration bigLease = Duration.ofSeconds(Math.max(60, (long) Math.ceil(3 * big / (0.5 * acquiresPerSecond))));
            long bigObserve = bigLease.toMillis() / 3 + 10_000; // every lease renews once after the last acquire
            Map<String, String> large =
                    scaleRun(rig, "locktable", rig.at(at).toString(), big, bigLease, 16, 0, bigObserve, errors);
            scaleRow(rows, "LockTable", big, bigLease, at + " ms", true, large);
            scaleMetrics(report, "scale.max", large, bigLease);
            report.metric("scale.max.leases", big, Stats.num(big) + " leases, lease " + Stats.duration(bigLease));
        }
        report.table("scale", header(), rows);
    }

    /**
     * Waiting acquires of one table for locks another table holds: {@code acquireAsync} (10,000 started at once and
     * over one poll period, 1,000, and 10,000 over the asynchronous client), the blocking acquire on a platform thread
     * each (ten times fewer: a platform thread per waiter is what the async API avoids, and 10,000 of them on two cores
     * measure the machine), and on a virtual thread each where the JVM has them.
     */
    private static void waiters(Rig rig, Plan plan, Report report, Path errors) throws Exception {
        int at = plan.headlineRtt();
        List<List<String>> rows = new ArrayList<>();
        Waiters.Result async = waitersRun(rig, plan, errors, "async", Duration.ZERO, plan.asyncWaiters());
        rows.add(waitersRow("`acquireAsync`, started at once", async, at));
        waitersMetrics(report, async);
        // the same waiters started evenly over one poll period: their polls stay spread out, as those of waiters
        // that came one by one would be (the other rows start so too: waiters started at once poll in step, and a
        // window of a few polls then counts two or three per waiter by its phase)
        Waiters.Result spread = waitersRun(rig, plan, errors, "async", Waiters.POLL, plan.asyncWaiters());
        rows.add(waitersRow("`acquireAsync`, started over 10 s", spread, at));
        waitersMetrics(report, spread);
        // as many as the blocking row: the library's threads follow the polls a second times the round trip, not N
        Waiters.Result fewer = waitersRun(rig, plan, errors, "async", Waiters.POLL, plan.blockingWaiters());
        rows.add(waitersRow("`acquireAsync`, started over 10 s", fewer, at));
        waitersMetrics(report, fewer, "waiters.async.fewer");
        // over DynamoDbAsyncClient (a worker still waits for each request's future: lock-core's DynamoDbRequests.Async)
        Waiters.Result overAsync = waitersRun(rig, plan, errors, "async-client", Waiters.POLL, plan.asyncWaiters());
        rows.add(waitersRow(
                "`acquireAsync` over `DynamoDbAsyncClient` (the SDK's default, Netty), started over 10 s",
                overAsync,
                at));
        waitersMetrics(report, overAsync);
        Waiters.Result blocking = waitersRun(rig, plan, errors, "blocking", Waiters.POLL, plan.blockingWaiters());
        rows.add(waitersRow("`acquire`, a platform thread each, started over 10 s", blocking, at));
        waitersMetrics(report, blocking);
        String virtualLabel = "`acquire`, a virtual thread each, started over 10 s";
        if (Waiters.virtualThreads()) {
            Waiters.Result virtual = waitersRun(rig, plan, errors, "virtual", Waiters.POLL, plan.asyncWaiters());
            rows.add(waitersRow(virtualLabel, virtual, at));
            waitersMetrics(report, virtual);
        } else {
            List<String> row = new ArrayList<>(List.of(
                    virtualLabel,
                    Stats.num(plan.asyncWaiters()),
                    "not run: Java " + Runtime.version() + " has no virtual threads (Java 21+)"));
            while (row.size() < 10) {
                row.add("—");
            }
            rows.add(row);
        }
        report.table(
                "waiters",
                List.of(
                        "waiting with",
                        "waiters",
                        "locks / round trip",
                        "first requests sent in",
                        "threads added (peak)",
                        "heap per waiter",
                        "reads / waiter / min (bound 6)",
                        "writes / waiter / min",
                        "handover from another table p50 / max",
                        "handover within the table p50 / max"),
                rows);
    }

    private static Waiters.Result waitersRun(Rig rig, Plan plan, Path errors, String mode, Duration spread, int waiters)
            throws Exception {
        return Waiters.run(
                rig,
                plan.headlineRtt(),
                mode,
                spread,
                waiters,
                plan.waiterLocks(),
                plan.waitersWindow(),
                plan.sameTableRounds(),
                errors);
    }

    private static List<String> waitersRow(String label, Waiters.Result r, int rtt) {
        Map<String, String> c = r.child();
        Stats cross = Stats.of(r.crossTable());
        Stats same = Stats.of(r.sameTable());
        return List.of(
                label,
                Stats.num(r.n()),
                r.locks() + " / " + rtt + " ms",
                Stats.num(d(c, "startSeconds")) + " s",
                c.get("threads") + " " + c.get("threadNames") + "; own " + c.get("threadsLibrary") + ", SDK "
                        + c.get("threadsSdk"),
                Stats.num(d(c, "heapPerWaiter")) + " bytes",
                Stats.num(d(c, "readsPerMinute")),
                Stats.num(d(c, "writesPerMinute")) + (c.get("won").equals("0") ? "" : " (" + c.get("won") + " won!)"),
                Stats.ms(cross.median()) + " / " + Stats.ms(cross.max()) + " (" + cross.count() + ")",
                Stats.ms(same.median()) + " / " + Stats.ms(same.max()) + " (" + same.count() + ")");
    }

    private static void waitersMetrics(Report report, Waiters.Result r) {
        waitersMetrics(report, r, "waiters." + r.id());
    }

    private static void waitersMetrics(Report report, Waiters.Result r, String prefix) {
        Map<String, String> c = r.child();
        String n = Stats.num(r.n()) + " waiters: ";
        report.metric(prefix + ".threads", d(c, "threads"), n + c.get("threads") + " " + c.get("threadNames"));
        report.metric(
                prefix + ".threads.library",
                d(c, "threadsLibrary"),
                n + c.get("threadsLibrary") + " of the library's own (peak), beside " + c.get("threadsSdk")
                        + " of the SDK's timeout executor");
        report.metric(prefix + ".heap", d(c, "heapPerWaiter"), Stats.num(d(c, "heapPerWaiter")) + " bytes per waiter");
        report.metric(prefix + ".reads", d(c, "readsPerMinute") / 6, Stats.num(d(c, "readsPerMinute")) + " reads/min");
        report.metric(prefix + ".won", d(c, "won"), c.get("won") + " waiters took a live holder's lock");
        report.metric(
                prefix + ".handover.other",
                Stats.of(r.crossTable()).median() / 1e6,
                "p50 " + Stats.ms(Stats.of(r.crossTable()).median()));
        report.metric(
                prefix + ".handover.same",
                Stats.of(r.sameTable()).median() / 1e6,
                "p50 " + Stats.ms(Stats.of(r.sameTable()).median()));
    }

    /** The three runs side by side: at 500 ms a round trip they wait, they do not compete for the processors. */
    private static void slow(Rig rig, Plan plan, Report report, Path errors) throws Exception {
        Duration lease = Duration.ofSeconds(30);
        String endpoint =
                rig.proxy(Duration.ZERO, Duration.ofMillis(500)).endpoint().toString();
        int n = plan.slowLeases();
        long observe =
                lease.toMillis() + lease.toMillis() / 3 + 5_000; // a whole lease after the last acquire, and more
        CompletableFuture<Map<String, String>> defaults =
                background(() -> scaleRun(rig, "locktable", endpoint, n, lease, 64, 0, observe, errors));
        CompletableFuture<Map<String, String>> wide =
                background(() -> scaleRun(rig, "locktable", endpoint, n, lease, 64, 64, observe, errors));
        CompletableFuture<Map<String, String>> peer =
                background(() -> scaleRun(rig, "peer", endpoint, n, lease, 64, 0, observe, errors));
        List<List<String>> rows = new ArrayList<>();
        scaleRow(
                rows,
                "LockTable at its defaults (6 workers, up to 64 while renewals are late)",
                n,
                lease,
                "500 ms",
                false,
                defaults.join());
        scaleRow(rows, "LockTable, schedulerThreads(64)", n, lease, "500 ms", false, wide.join());
        scaleRow(rows, "Lock Client", n, lease, "500 ms", false, peer.join());
        report.metric("slow.lost", d(defaults.join(), "lost"), defaults.join().get("lost") + " lost");
        report.metric("slow.lost.64", d(wide.join(), "lost"), wide.join().get("lost") + " lost");
        report.table("slow", header(), rows);
    }

    private static List<String> header() {
        return List.of(
                "library",
                "leases",
                "lease / renewal period",
                "round trip",
                "acquiring took",
                "threads added (peak)",
                "heap per held lease",
                "lateness p50 / p99 / max",
                "p99 in % of the period",
                "renewals",
                "late (onRenewalLate)",
                "lost");
    }

    private static Map<String, String> scaleRun(
            Rig rig,
            String kind,
            String endpoint,
            int n,
            Duration lease,
            int threads,
            int workers,
            long observe,
            Path errors)
            throws Exception {
        return scaleRun(rig, kind, endpoint, n, lease, threads, workers, observe, errors, 0);
    }

    private static Map<String, String> scaleRun(
            Rig rig,
            String kind,
            String endpoint,
            int n,
            Duration lease,
            int threads,
            int workers,
            long observe,
            Path errors,
            long clientTimeoutMs)
            throws Exception {
        String table = kind.equals("locktable") ? rig.newOursTable("bench-scale") : rig.newPeerTable("bench-scale");
        Stats.log("  " + kind + ", " + n + " leases of " + Stats.duration(lease) + " at " + endpoint + ", observed "
                + observe / 1000 + " s after the last acquire");
        try (ChildJvm.Handle child = ChildJvm.Handle.start(
                errors,
                "1g",
                "scale",
                "kind=" + kind,
                "endpoint=" + endpoint,
                "table=" + table,
                "n=" + n,
                "leaseMs=" + lease.toMillis(),
                "threads=" + threads,
                "observeMs=" + observe,
                "workers=" + workers,
                "clientTimeoutMs=" + clientTimeoutMs)) {
            Map<String, String> result = ChildJvm.parse(child.answer());
            Stats.log("    " + result);
            return result;
        } finally {
            rig.deleteTable(table);
        }
    }

    private static void scaleRow(
            List<List<String>> rows,
            String library,
            int n,
            Duration lease,
            String rtt,
            boolean heap,
            Map<String, String> r) {
        double period = lease.toNanos() / 3.0;
        rows.add(List.of(
                library,
                Stats.num(n),
                Stats.duration(lease) + " / " + Stats.duration(lease.dividedBy(3)),
                rtt,
                Stats.num(d(r, "acquireSeconds")) + " s",
                r.get("threads") + " " + r.get("threadNames") + "; own " + r.get("threadsLibrary") + ", SDK "
                        + r.get("threadsSdk"),
                heap ? Stats.num(d(r, "heapPerLease")) + " bytes" : "(not measured here)",
                Stats.ms(d(r, "p50")) + " / " + Stats.ms(d(r, "p99")) + " / " + Stats.ms(d(r, "max")),
                Stats.percent(d(r, "p99") / period),
                r.get("renewals"),
                library.startsWith("LockTable") ? r.get("late") : "(no such event)",
                r.get("lost")));
    }

    private static void scaleMetrics(Report report, String prefix, Map<String, String> r, Duration lease) {
        double period = lease.toNanos() / 3.0;
        report.metric(prefix + ".lost", d(r, "lost"), r.get("lost") + " lost");
        report.metric(
                prefix + ".lateness",
                d(r, "p99") / period,
                "p99 " + Stats.ms(d(r, "p99")) + " = " + Stats.percent(d(r, "p99") / period) + ", max "
                        + Stats.ms(d(r, "max")));
        report.metric(prefix + ".threads", d(r, "threads"), r.get("threads") + " " + r.get("threadNames"));
        report.metric(
                prefix + ".threads.library",
                d(r, "threadsLibrary"),
                r.get("threadsLibrary") + " of the library's own (peak), beside " + r.get("threadsSdk")
                        + " of the SDK's timeout executor");
        report.metric(
                prefix + ".heap", d(r, "heapPerLease"), Stats.num(d(r, "heapPerLease")) + " bytes per held lease");
    }

    /**
     * The earlier run's description, with a line for this partial run (replacing one for the same phases): which
     * tables it wrote, and when.
     */
    private static String partialRunInfo(
            String earlier, String command, Set<String> only, Instant started, double loadBefore, int met, int goals) {
        String phases = String.join(",", new TreeSet<>(only));
        String marker = "Partial run `--only " + phases + "`";
        StringBuilder text = new StringBuilder();
        for (String line : earlier.lines().toList()) {
            if (!line.startsWith(marker)) {
                text.append(line).append('\n');
            }
        }
        while (text.length() > 1 && text.charAt(text.length() - 2) == '\n') {
            text.setLength(text.length() - 1); // no blank lines at the end
        }
        Duration took = Duration.between(started, Instant.now()).truncatedTo(ChronoUnit.SECONDS);
        text.append('\n')
                .append(marker)
                .append(": `")
                .append(command)
                .append("` on ")
                .append(started)
                .append(", in ")
                .append(took.toMinutes())
                .append(" min ")
                .append(took.toSecondsPart())
                .append(" s, lock-core commit ")
                .append(System.getProperty("bench.commit", "unknown"))
                .append(", load average ")
                .append(Stats.num(loadBefore))
                .append(" at the start, ")
                .append(Stats.num(Stats.load()))
                .append(" at the end; it rewrote the tables of those phases and the goals they measure (goals met"
                        + " now: ")
                .append(met)
                .append(" of ")
                .append(goals)
                .append("); the other tables are from the run above.\n");
        return text.toString();
    }

    private static String runInfo(String command, Plan plan, Instant started, double loadBefore, int met, int goals) {
        Duration took = Duration.between(started, Instant.now()).truncatedTo(ChronoUnit.SECONDS);
        return String.join(
                "\n",
                "```bash",
                command,
                "```",
                "",
                "Generated by the command above (plan `" + plan.name() + "`) on " + started + ", in " + took.toMinutes()
                        + " min " + took.toSecondsPart() + " s; goals met: " + met + " of " + goals + ".",
                "Machine: " + Runtime.getRuntime().availableProcessors() + " cores, shared with other builds; load"
                        + " average " + Stats.num(loadBefore) + " at the start, " + Stats.num(Stats.load())
                        + " at the end.",
                "Versions: LockTable `lock-core` commit " + System.getProperty("bench.commit", "unknown")
                        + "; `com.amazonaws:dynamodb-lock-client:1.3.0`; AWS SDK for Java " + VersionInfo.SDK_VERSION
                        + " (`apache5-client`) for both; JMH 1.37; Java " + System.getProperty("java.runtime.version")
                        + "; dynalite and moto as lock-test starts them.",
                "");
    }
}
