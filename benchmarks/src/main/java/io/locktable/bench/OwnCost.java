package io.locktable.bench;

import io.locktable.test.DynaliteServer;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The phase {@code cpu}: each library's own processor time and allocation per operation, over canned answers
 * ({@link Alone}, table {@code cpu}, metric {@code cpu.ratio.cycle}), and where the processor time of an acquire +
 * release through dynalite goes at 1 and 8 threads (table {@code cpu-engine}): the client's JVM, the engine's process
 * and the harness's proxy, each per cycle, read from the processes' CPU counters around every measured iteration.
 */
final class OwnCost {

    private OwnCost() {}

    /** One benchmark's figures: mean µs per op, CPU ns per op on the caller's thread, bytes per op. */
    record Figures(double micros, double cpuNanos, double bytes) {}

    static void measure(Rig dynalite, Bench.Plan plan, Report report, Path log) {
        boolean quick = plan.name().equals("quick");
        try (PrintStream out =
                new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8)) {
            double loadBefore = Stats.load();
            Map<String, Figures> canned = canned(quick, out);
            cannedTable(canned, report, loadBefore, Stats.load());
            if (dynalite != null) {
                engineTable(dynalite, plan, quick, report, out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs every benchmark of {@link Alone}, one fork each, with the allocation and CPU profilers. */
    static Map<String, Figures> canned(boolean quick, PrintStream out) {
        OptionsBuilder options = new OptionsBuilder();
        options.include(Alone.class.getName() + "\\.")
                .forks(1)
                .warmupIterations(quick ? 1 : 8)
                .warmupTime(TimeValue.seconds(quick ? 1 : 3))
                .measurementIterations(quick ? 1 : 5)
                .measurementTime(TimeValue.seconds(quick ? 1 : 3))
                .addProfiler(GCProfiler.class)
                .addProfiler(ThreadCpuProfiler.class)
                .shouldFailOnError(true);
        Map<String, Figures> figures = new HashMap<>();
        try {
            Collection<RunResult> results = new Runner(
                            options.build(), OutputFormatFactory.createFormatInstance(out, VerboseMode.NORMAL))
                    .run();
            for (RunResult result : results) {
                String method = result.getParams().getBenchmark();
                String name = method.substring(method.lastIndexOf('.') + 1);
                String timeout = result.getParams().getParam("timeout");
                if ("false".equals(timeout)) {
                    name += "NoTimeout";
                }
                Figures figure = new Figures(
                        median(result, null),
                        median(result, "cpu.worker.norm"),
                        result.getSecondaryResults().get("gc.alloc.rate.norm").getScore());
                figures.put(name, figure);
                Stats.log(String.format(
                        "  %s: %.1f µs/op, CPU %.1f µs/op, %.0f B/op",
                        name, figure.micros(), figure.cpuNanos() / 1e3, figure.bytes()));
            }
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed for the canned benchmarks", e);
        }
        return figures;
    }

    /**
     * The median over the measured iterations of the primary result (null) or a secondary one: on a loaded machine a
     * few iterations run while the JIT compiler or another process takes the cores, and the mean follows them.
     */
    static double median(RunResult result, String secondary) {
        List<Double> values = new ArrayList<>();
        for (BenchmarkResult fork : result.getBenchmarkResults()) {
            for (IterationResult iteration : fork.getIterationResults()) {
                Result r = secondary == null
                        ? iteration.getPrimaryResult()
                        : iteration.getSecondaryResults().get(secondary);
                values.add(r.getScore());
            }
        }
        return Stats.of(values).median();
    }

    /** LockTable's own CPU per cycle over the Lock Client's, each minus its SDK baseline; n/a when noise hides one. */
    private static String ownRatio(Map<String, Figures> f) {
        double ours =
                f.get("cycleLockTable").cpuNanos() - f.get("sdkCycleLockTable").cpuNanos();
        double peer = f.get("cycleLockClient").cpuNanos()
                - f.get("sdkCycleLockClient").cpuNanos();
        return ours > 0 && peer > 0 ? Stats.num(ours / peer) : "n/a";
    }

    private static void cannedTable(Map<String, Figures> f, Report report, double loadBefore, double loadAfter) {
        List<List<String>> rows = new ArrayList<>();
        for (String[] op :
                new String[][] {{"cycle", "acquire + release"}, {"renewal", "renewal"}, {"poll", "poll of a held lock"}
                }) {
            String upper = Character.toUpperCase(op[0].charAt(0)) + op[0].substring(1);
            for (String library : List.of("LockTable", "LockClient")) {
                Figures lib = f.get(op[0] + library);
                Figures sdk = f.get("sdk" + upper + library);
                rows.add(List.of(
                        op[1],
                        library.equals("LockTable") ? "LockTable" : "Lock Client",
                        Stats.num(lib.micros()),
                        "**" + Stats.num(lib.cpuNanos() / 1e3) + "**",
                        Stats.num(lib.bytes()),
                        Stats.num(sdk.cpuNanos() / 1e3) + " / " + Stats.num(sdk.bytes()),
                        Stats.num((lib.cpuNanos() - sdk.cpuNanos()) / 1e3) + " / "
                                + Stats.num(lib.bytes() - sdk.bytes())));
            }
            Figures noTimeout = f.get("sdk" + upper + "LockTableNoTimeout");
            rows.add(List.of(
                    op[1],
                    "the SDK alone, LockTable's requests without their apiCallTimeout",
                    Stats.num(noTimeout.micros()),
                    Stats.num(noTimeout.cpuNanos() / 1e3),
                    Stats.num(noTimeout.bytes()),
                    "",
                    ""));
        }
        Figures refused = f.get("sdkRefusedWrite");
        rows.add(List.of(
                "a refused write (ConditionalCheckFailedException with the item)",
                "the SDK alone",
                Stats.num(refused.micros()),
                Stats.num(refused.cpuNanos() / 1e3),
                Stats.num(refused.bytes()),
                "",
                ""));
        double ratio =
                f.get("cycleLockTable").cpuNanos() / f.get("cycleLockClient").cpuNanos();
        double bytesRatio =
                f.get("cycleLockTable").bytes() / f.get("cycleLockClient").bytes();
        report.metric("cpu.ratio.cycle", ratio, Stats.num(ratio));
        report.metrics.put("cpu.ratio.cycle.bytes", bytesRatio);
        rows.add(List.of(
                "**ratio LockTable / Lock Client, acquire + release**",
                "",
                Stats.num(f.get("cycleLockTable").micros()
                        / f.get("cycleLockClient").micros()),
                "**" + Stats.num(ratio) + "**",
                Stats.num(bytesRatio),
                "",
                ownRatio(f) + " (CPU)"));
        report.table(
                "cpu",
                List.of(
                        "operation",
                        "library",
                        "µs/op",
                        "CPU µs/op",
                        "bytes/op",
                        "the SDK alone, same requests: CPU µs / bytes",
                        "the library's own (minus the SDK): CPU µs / bytes"),
                rows);
        report.notes.put(
                "cpu.load",
                "load average " + Stats.num(loadBefore) + " at the start, " + Stats.num(loadAfter) + " at the end");
    }

    /**
     * Acquire + release through dynalite at 5 ms with 1 and 8 threads, both libraries back to back, with the processes'
     * CPU per cycle: the JMH fork (the client), dynalite (with its descendants) and this JVM (the proxy).
     */
    private static void engineTable(Rig rig, Bench.Plan plan, boolean quick, Report report, PrintStream out) {
        long engine = DynaliteServer.shared().pid();
        long harness = ProcessHandle.current().pid();
        int rtt = plan.headlineRtt();
        List<List<String>> rows = new ArrayList<>();
        for (int threads : plan.threads()) {
            for (String library : List.of("locktable", "peer")) {
                double load = Stats.load();
                RunResult result = engineFork(rig, rtt, threads, library, plan.jmh(), quick, engine, harness, out);
                double meanMillis = result.getPrimaryResult().getScore();
                double p50 = result.getPrimaryResult().getStatistics().getPercentile(50);
                Map<String, Result> s = result.getSecondaryResults();
                double client = s.get("cpu.process.norm").getScore();
                double callers = s.get("cpu.worker.norm").getScore();
                double dynalite = s.containsKey("cpu.engine.norm")
                        ? s.get("cpu.engine.norm").getScore()
                        : Double.NaN;
                double proxy = s.containsKey("cpu.harness.norm")
                        ? s.get("cpu.harness.norm").getScore()
                        : Double.NaN;
                double perSecond = threads * 1000 / meanMillis;
                double total = client + dynalite + proxy;
                String at = "." + library + ".t" + threads;
                report.metrics.put("cpu.engine.ms" + at, dynalite / 1e6);
                report.metrics.put("cpu.client.ms" + at, client / 1e6);
                double engineShare = dynalite / total;
                rows.add(List.of(
                        library.equals("peer") ? "Lock Client (defaults)" : "LockTable",
                        Integer.toString(threads),
                        Stats.num(p50),
                        Stats.num(perSecond),
                        Stats.num(client / 1e3) + " (" + Stats.num(callers / 1e3) + ")",
                        "**" + Stats.num(dynalite / 1e3) + "**",
                        Stats.num(proxy / 1e3),
                        Stats.num(total / 1e3),
                        Stats.num(total * perSecond / 1e9),
                        Stats.num(dynalite * perSecond / 1e9) + " (" + Stats.percent(engineShare) + ")",
                        Stats.num(load)));
                Stats.log(String.format(
                        "  %s, %d thread(s): p50 %.2f ms, %.0f cycles/s, CPU µs per cycle: client %.0f, engine %.0f,"
                                + " proxy %.0f",
                        library, threads, p50, perSecond, client / 1e3, dynalite / 1e3, proxy / 1e3));
            }
        }
        report.table(
                "cpu-engine",
                List.of(
                        "library",
                        "threads",
                        "p50 ms",
                        "cycles/s",
                        "client JVM CPU µs per cycle (its request threads)",
                        "dynalite CPU µs per cycle",
                        "proxy CPU µs per cycle",
                        "total CPU µs per cycle",
                        "cores busy (total)",
                        "cores busy (dynalite, its share)",
                        "load average"),
                rows);
    }

    private static RunResult engineFork(
            Rig rig,
            int rtt,
            int threads,
            String library,
            Cycle.Settings s,
            boolean quick,
            long enginePid,
            long harnessPid,
            PrintStream out) {
        OptionsBuilder options = new OptionsBuilder();
        options.include(Cycle.class.getName() + ".acquireRelease")
                .param("library", library)
                .mode(org.openjdk.jmh.annotations.Mode.SampleTime)
                .timeUnit(TimeUnit.MILLISECONDS)
                .threads(threads)
                .forks(1)
                // longer than the latency phase's warm-up: a cold client spends milliseconds per cycle in the JIT
                .warmupIterations(quick ? s.warmups() : 5)
                .warmupTime(TimeValue.seconds(quick ? s.warmupSeconds() : 2))
                .measurementIterations(quick ? s.iterations() : 3)
                .measurementTime(TimeValue.seconds(quick ? s.iterationSeconds() : 3))
                // no operations outside the measured window: each thread stops at the end of its own iteration,
                // so the processes' CPU counters cover only the operations counted
                .syncIterations(false)
                .addProfiler(ThreadCpuProfiler.class)
                .jvmArgs(
                        "-Xms256m",
                        "-Xmx512m",
                        "-XX:+UseSerialGC",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dbench.endpoint=" + rig.at(rtt),
                        "-Dbench.oursTable=" + rig.oursTable,
                        "-Dbench.peerTable=" + rig.peerTable,
                        "-Dbench.cpuPids=engine:" + enginePid + ",harness:" + harnessPid)
                .shouldFailOnError(true);
        try {
            return new Runner(options.build(), OutputFormatFactory.createFormatInstance(out, VerboseMode.NORMAL))
                    .run()
                    .iterator()
                    .next();
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed for " + library + " at " + rtt + " ms", e);
        }
    }
}
