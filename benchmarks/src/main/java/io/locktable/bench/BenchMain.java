package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Runs every benchmark scenario on one dynalite and writes {@code docs/benchmarks.md}. Started by {@code
 * benchmarks/run.sh}; arguments: {@code [--quick] [--out FILE] [--command TEXT]}.
 */
public final class BenchMain {

    private BenchMain() {}

    /**
     * Runs the benchmarks.
     *
     * @param args the arguments
     * @throws Exception if a scenario fails
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of("docs", "benchmarks.md");
        String command = "./benchmarks/run.sh";
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(args[++i]);
                case "--command" -> command = args[++i];
                default ->
                    throw new IllegalArgumentException(
                            "unknown argument " + args[i] + "; usage: [--quick] [--out FILE] [--command TEXT]");
            }
        }
        Logger.getLogger("").setLevel(Level.WARNING);
        Plan plan = quick ? Plan.quick() : Plan.full();
        Path work = Files.createDirectories(Path.of("benchmarks", "target", "bench"));
        Instant started = Instant.now();
        long start = System.nanoTime();
        double loadBefore = Machine.loadAverage();
        DynamoDbEngine engine = Engine.current();
        List<Section> sections = new ArrayList<>();
        try (DynamoDbClient admin = Engine.client(engine)) {
            String oursTable = Tables.ours(engine, "bench-ours");
            String peerTable = Tables.peer(admin, "bench-peer");
            sections.add(cycle(plan, engine, oursTable, peerTable, work));
            sections.addAll(holdingAndFailover(plan, engine, oursTable, peerTable, work));
            sections.add(scale(plan, engine, oursTable, peerTable));
        }
        RunInfo info = new RunInfo(
                command,
                started,
                Duration.ofNanos(System.nanoTime() - start),
                loadBefore,
                Machine.loadAverage(),
                engine.name() + " at " + engine.endpoint());
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, ReportWriter.write(plan, info, sections));
        log("wrote " + out + " in " + Format.duration(info.took().withNanos(0)));
        System.exit(0);
    }

    private static Section cycle(Plan plan, DynamoDbEngine engine, String oursTable, String peerTable, Path work) {
        log("1. requests per cycle");
        List<CycleCounts.PerCycle> counts =
                new CycleCounts(engine, oursTable, peerTable, plan.cycleRounds(), plan.cyclesPerRound()).run();
        log("1. request costs on dynalite");
        List<RequestCosts.Cost> costs = new RequestCosts(
                        engine, oursTable, peerTable, plan.expressionRounds(), plan.expressionRequests())
                .run();
        log("1. JMH latency and throughput (log: " + work.resolve("jmh.log") + ")");
        List<JmhRunner.Point> points = new JmhRunner(
                        engine.endpoint().toString(), oursTable, peerTable, plan.jmh(), work.resolve("jmh.log"))
                .run(plan.jmhThreads());
        return CycleReport.build(counts, points, plan.jmhThreads(), costs);
    }

    private static List<Section> holdingAndFailover(
            Plan plan, DynamoDbEngine engine, String oursTable, String peerTable, Path work) throws Exception {
        log("2+3. holding and waiting (in the background), 4. failover");
        HoldingAndWaiting holding = new HoldingAndWaiting(
                engine, oursTable, peerTable, plan.heldLocks(), plan.waiters(), plan.windows(), plan.window());
        CompletableFuture<List<HoldingAndWaiting.Result>> held = new CompletableFuture<>();
        Thread background = new Thread(
                () -> {
                    try {
                        held.complete(holding.run());
                    } catch (Throwable e) {
                        held.completeExceptionally(e);
                    }
                },
                "holding-and-waiting");
        background.start();
        Failover failover =
                new Failover(engine, oursTable, peerTable, plan.failoverRounds(), work.resolve("children.log"));
        Map<Failover.Case, List<Long>> crash = failover.run(true);
        Map<Failover.Case, List<Long>> graceful = failover.run(false);
        List<HoldingAndWaiting.Result> results;
        try {
            results = held.join();
        } catch (CompletionException e) {
            throw new IllegalStateException("holding and waiting failed", e.getCause());
        }
        return List.of(
                HoldingReport.build(results, plan), FailoverReport.build(crash, graceful, plan.failoverRounds()));
    }

    private static Section scale(Plan plan, DynamoDbEngine engine, String oursTable, String peerTable) {
        log("5. heap left behind by released leases");
        ReleasedRetention retention = new ReleasedRetention(engine, oursTable, peerTable);
        List<ReleasedRetention.Result> retained =
                List.of(retention.ours(plan.retentionCycles()), retention.peer(plan.retentionCycles()));
        List<ScaleResult> results = new ArrayList<>();
        for (int count : plan.scaleCounts()) {
            Duration lease = plan.scaleLease(count);
            log("5. scale: LockTable, " + count + " leases of " + Format.duration(lease));
            results.add(new ScaleOurs(engine).run(count, lease));
            log("5. scale: Lock Client, " + count + " leases of " + Format.duration(lease));
            results.add(new ScalePeer(engine).run(count, lease));
        }
        results.sort((a, b) -> a.library().equals(b.library()) ? 0 : a.library().equals("LockTable") ? -1 : 1);
        return ScaleReport.build(results, retained, plan);
    }

    private static void log(String message) {
        System.out.printf("[bench %s] %s%n", Instant.now().toString().substring(11, 19), message);
    }
}
