package io.locktable.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Uncontended acquire + release: its requests, counted, and its latency, measured by JMH. Each JMH fork runs one
 * library at one thread count through the harness's proxy at one round trip; each benchmark thread takes and gives
 * back a lock of its own, so threads never contend. Throughput follows from the mean latency (threads / mean), as
 * the threads run back to back.
 */
@State(Scope.Benchmark)
public class Cycle {

    /** Both libraries' lease: a cycle takes milliseconds, so nothing is renewed during one. */
    static final Duration LEASE = Duration.ofSeconds(20);

    /** {@code locktable}, or {@code peer} at its defaults. */
    @Param({"locktable", "peer"})
    public String library;

    private DynamoDbClient client;
    private Lib lib;

    /** Connects to the proxy the harness named and builds the library. */
    @Setup(Level.Trial)
    public void setUp() {
        client = Rig.client(URI.create(System.getProperty("bench.endpoint")));
        lib = library.equals("peer")
                ? Lib.peerDefaults(client, System.getProperty("bench.peerTable"))
                : Lib.of("locktable", client, System.getProperty("bench.oursTable"), LEASE);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        lib.close();
        client.close();
    }

    /** The lock of one benchmark thread. */
    @State(Scope.Thread)
    public static class ThreadLock {
        final String name = "jmh-" + UUID.randomUUID();
    }

    @Benchmark
    public void acquireRelease(ThreadLock lock) {
        lib.release(lib.mustAcquire(lock.name));
    }

    /** JMH's figures of one fork, in milliseconds. */
    record Point(double p50, double p99, double mean, long samples) {}

    /** How long each fork measures. */
    record Settings(int warmups, int warmupSeconds, int iterations, int iterationSeconds) {}

    /**
     * Measures both libraries at every round trip and thread count, the two libraries back to back (their order
     * alternating) so that each pair gives a ratio under the same load; then adds the table {@code latency} and the
     * ratio metrics.
     */
    static void latency(Rig rig, Bench.Plan plan, Report report, Path log) {
        Map<String, List<Point>> points = new TreeMap<>();
        try (PrintStream out =
                new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8)) {
            int pair = 0;
            for (int round = 0; round < plan.jmhRounds(); round++) {
                for (int rtt : plan.roundTrips()) {
                    if (round > 0 && rtt != plan.headlineRtt()) {
                        continue; // more rounds only where the goals are
                    }
                    for (int threads : plan.threads()) {
                        List<String> order =
                                pair++ % 2 == 0 ? List.of("locktable", "peer") : List.of("peer", "locktable");
                        for (String library : order) {
                            Point p = fork(rig, rtt, threads, library, plan.jmh(), out);
                            points.computeIfAbsent(rtt + "/" + threads + "/" + library, k -> new ArrayList<>())
                                    .add(p);
                            Stats.log(String.format(
                                    "  %d ms, %d thread(s), %s: p50 %.2f ms, p99 %.2f ms",
                                    rtt, threads, library, p.p50(), p.p99()));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<List<String>> rows = new ArrayList<>();
        for (int rtt : plan.roundTrips()) {
            for (int threads : plan.threads()) {
                List<Point> ours = points.get(rtt + "/" + threads + "/locktable");
                List<Point> peer = points.get(rtt + "/" + threads + "/peer");
                List<Double> p50 = new ArrayList<>();
                List<Double> p99 = new ArrayList<>();
                for (int i = 0; i < ours.size(); i++) {
                    p50.add(ours.get(i).p50() / peer.get(i).p50());
                    p99.add(ours.get(i).p99() / peer.get(i).p99());
                }
                String at = ".rtt" + rtt + ".t" + threads;
                report.metric(
                        "cycle.ratio.p50" + at,
                        Stats.of(p50).median(),
                        Stats.of(p50).range(1));
                report.metric(
                        "cycle.ratio.p99" + at,
                        Stats.of(p99).median(),
                        Stats.of(p99).range(1));
                rows.add(List.of(
                        rtt + " ms",
                        Integer.toString(threads),
                        ms(ours, Point::p50) + " / " + ms(peer, Point::p50),
                        "**" + Stats.of(p50).range(1) + "**",
                        ms(ours, Point::p99) + " / " + ms(peer, Point::p99),
                        "**" + Stats.of(p99).range(1) + "**",
                        perSecond(ours, threads) + " / " + perSecond(peer, threads),
                        ours.stream().mapToLong(Point::samples).sum() + " / "
                                + peer.stream().mapToLong(Point::samples).sum()));
            }
        }
        report.table(
                "latency",
                List.of(
                        "round trip",
                        "threads",
                        "p50 ms, LockTable / Lock Client",
                        "ratio p50",
                        "p99 ms, LockTable / Lock Client",
                        "ratio p99",
                        "cycles/s, LockTable / Lock Client",
                        "samples"),
                rows);
    }

    private static String ms(List<Point> points, java.util.function.ToDoubleFunction<Point> f) {
        return Stats.of(points.stream().map(f::applyAsDouble).toList()).range(1);
    }

    private static String perSecond(List<Point> points, int threads) {
        return Stats.of(points.stream().map(p -> threads * 1000 / p.mean()).toList())
                .range(1);
    }

    private static Point fork(Rig rig, int rtt, int threads, String library, Settings s, PrintStream out) {
        OptionsBuilder options = new OptionsBuilder();
        options.include(Cycle.class.getName() + ".acquireRelease")
                .param("library", library)
                .mode(Mode.SampleTime)
                .timeUnit(TimeUnit.MILLISECONDS)
                .threads(threads)
                .forks(1)
                .warmupIterations(s.warmups())
                .warmupTime(TimeValue.seconds(s.warmupSeconds()))
                .measurementIterations(s.iterations())
                .measurementTime(TimeValue.seconds(s.iterationSeconds()))
                .jvmArgs(
                        "-Xms256m",
                        "-Xmx512m",
                        "-XX:+UseSerialGC",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dbench.endpoint=" + rig.at(rtt),
                        "-Dbench.oursTable=" + rig.oursTable,
                        "-Dbench.peerTable=" + rig.peerTable)
                .shouldFailOnError(true);
        try {
            RunResult result = new Runner(
                            options.build(), OutputFormatFactory.createFormatInstance(out, VerboseMode.NORMAL))
                    .run()
                    .iterator()
                    .next();
            Statistics latency = result.getPrimaryResult().getStatistics();
            return new Point(latency.getPercentile(50), latency.getPercentile(99), latency.getMean(), latency.getN());
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed for " + library + " at " + rtt + " ms", e);
        }
    }

    /**
     * Counts the requests of acquire + release at each round trip, and times the cycles, the requests' time on the
     * wire (at 0 ms, what the engine and the loopback cost; above, what the proxy adds) and the client's CPU time per
     * cycle ({@link ClientCpu}: all of this JVM's threads but the proxy's); adds rows to {@code rows}
     * and the metric {@code cycle.requests.<engine>} (LockTable's requests per cycle minus the peer's).
     */
    static void requests(Rig rig, List<Integer> roundTrips, int cycles, Report report, List<List<String>> rows) {
        for (String kind : List.of("locktable", "peer-defaults")) {
            List<String> perCycle = new ArrayList<>();
            List<String> cycleMillis = new ArrayList<>();
            List<String> wireMillis = new ArrayList<>();
            List<String> cpuMicros = new ArrayList<>();
            Map<String, Long> operations = Map.of();
            double requests = 0;
            for (int rtt : roundTrips) {
                Counter counter = new Counter();
                try (DynamoDbClient client = Rig.client(rig.at(rtt), counter);
                        Lib lib =
                                Lib.of(kind, client, kind.equals("locktable") ? rig.oursTable : rig.peerTable, LEASE)) {
                    String name = "count-" + UUID.randomUUID();
                    for (int i = 0; i < 20; i++) { // warms up
                        lib.release(lib.mustAcquire(name));
                    }
                    counter.reset();
                    ClientCpu cpu = ClientCpu.start();
                    long start = System.nanoTime();
                    for (int i = 0; i < cycles; i++) {
                        lib.release(lib.mustAcquire(name));
                    }
                    long took = System.nanoTime() - start;
                    cpuMicros.add(Stats.num(cpu.nanos() / 1e3 / cycles));
                    requests = Math.max(requests, counter.total() / (double) cycles);
                    perCycle.add(Stats.num(counter.total() / (double) cycles));
                    cycleMillis.add(Stats.num(took / 1e6 / cycles));
                    wireMillis.add(Stats.num(counter.wireNanos() / 1e6 / counter.total()));
                    operations = counter.byOperation();
                }
            }
            boolean ours = kind.equals("locktable");
            rows.add(List.of(
                    rig.engine,
                    ours ? "LockTable" : "Lock Client (defaults)",
                    String.join(" / ", roundTrips.stream().map(r -> r + " ms").toList()),
                    String.join(" / ", perCycle),
                    describe(operations, cycles),
                    String.join(" / ", cycleMillis),
                    String.join(" / ", wireMillis),
                    String.join(" / ", cpuMicros)));
            report.metrics.merge("cycle.requests." + rig.engine, ours ? requests : -requests, Double::sum);
        }
        double diff = report.metrics.get("cycle.requests." + rig.engine);
        report.notes.put("cycle.requests." + rig.engine, Stats.num(diff) + " (LockTable's minus the Lock Client's)");
    }

    private static String describe(Map<String, Long> operations, int cycles) {
        List<String> parts = new ArrayList<>();
        operations.forEach((op, n) -> parts.add(op + " " + Stats.num(n / (double) cycles)));
        return String.join(", ", parts);
    }
}
