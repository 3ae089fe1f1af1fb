package io.locktable.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

/**
 * Scenario 1, latency and throughput: runs {@link AcquireReleaseBenchmark} with JMH, one fork per library, thread
 * count and mode, the libraries alternating within each round, so that each round gives a ratio measured under the
 * same conditions. JMH's own output goes to a log file.
 */
public final class JmhRunner {

    /**
     * How long JMH runs.
     *
     * @param rounds alternating rounds
     * @param warmupIterations warm-up iterations per fork
     * @param warmupSeconds seconds per warm-up iteration
     * @param iterations measured iterations per fork
     * @param iterationSeconds seconds per measured iteration
     */
    public record Settings(int rounds, int warmupIterations, int warmupSeconds, int iterations, int iterationSeconds) {}

    /**
     * One fork's figures.
     *
     * @param library {@code locktable} or {@code peer}
     * @param threads benchmark threads
     * @param round the round
     * @param p50Millis median latency of a cycle
     * @param p99Millis 99th percentile latency
     * @param samples latency samples
     * @param opsPerSecond throughput (all threads together), the mean of the iterations
     * @param opsMin the slowest iteration's throughput
     * @param opsMax the fastest iteration's throughput
     */
    public record Point(
            String library,
            int threads,
            int round,
            double p50Millis,
            double p99Millis,
            long samples,
            double opsPerSecond,
            double opsMin,
            double opsMax) {}

    private final String endpoint;
    private final String oursTable;
    private final String peerTable;
    private final Settings settings;
    private final Path log;

    /**
     * Sets the runs up.
     *
     * @param endpoint the engine's endpoint
     * @param oursTable LockTable's table
     * @param peerTable the peer's table
     * @param settings how long to run
     * @param log where JMH's output goes
     */
    public JmhRunner(String endpoint, String oursTable, String peerTable, Settings settings, Path log) {
        this.endpoint = endpoint;
        this.oursTable = oursTable;
        this.peerTable = peerTable;
        this.settings = settings;
        this.log = log;
    }

    /**
     * Runs every fork.
     *
     * @param threadCounts the thread counts to measure
     * @return one point per library, thread count and round
     */
    public List<Point> run(int... threadCounts) {
        List<Point> points = new ArrayList<>();
        try (PrintStream out =
                new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8)) {
            for (int round = 1; round <= settings.rounds(); round++) {
                for (int threads : threadCounts) {
                    List<String> order = round % 2 == 1 ? List.of("locktable", "peer") : List.of("peer", "locktable");
                    for (String library : order) {
                        RunResult sample = runOnce(out, library, threads, Mode.SampleTime);
                        RunResult throughput = runOnce(out, library, threads, Mode.Throughput);
                        Point point = point(library, threads, round, sample, throughput);
                        System.out.printf(
                                "  jmh round %d, %s, %d thread(s): p50 %.2f ms, p99 %.2f ms, %.0f ops/s%n",
                                round, library, threads, point.p50Millis(), point.p99Millis(), point.opsPerSecond());
                        points.add(point);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return points;
    }

    private static Point point(String library, int threads, int round, RunResult sample, RunResult throughput) {
        Statistics latency = sample.getPrimaryResult().getStatistics();
        Statistics ops = throughput.getPrimaryResult().getStatistics();
        return new Point(
                library,
                threads,
                round,
                latency.getPercentile(50),
                latency.getPercentile(99),
                latency.getN(),
                ops.getMean(),
                ops.getMin(),
                ops.getMax());
    }

    private RunResult runOnce(PrintStream out, String library, int threads, Mode mode) {
        Options options = new OptionsBuilder()
                .include(AcquireReleaseBenchmark.class.getName() + ".acquireRelease")
                .param("library", library)
                .mode(mode)
                .timeUnit(mode == Mode.Throughput ? TimeUnit.SECONDS : TimeUnit.MILLISECONDS)
                .threads(threads)
                .forks(1)
                .warmupIterations(settings.warmupIterations())
                .warmupTime(TimeValue.seconds(settings.warmupSeconds()))
                .measurementIterations(settings.iterations())
                .measurementTime(TimeValue.seconds(settings.iterationSeconds()))
                .jvmArgs(
                        "-Xms256m",
                        "-Xmx512m",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-D" + AcquireReleaseBenchmark.ENDPOINT + "=" + endpoint,
                        "-D" + AcquireReleaseBenchmark.OURS_TABLE + "=" + oursTable,
                        "-D" + AcquireReleaseBenchmark.PEER_TABLE + "=" + peerTable)
                .shouldFailOnError(true)
                .build();
        try {
            Collection<RunResult> results =
                    new Runner(options, OutputFormatFactory.createFormatInstance(out, VerboseMode.NORMAL)).run();
            if (results.size() != 1) {
                throw new IllegalStateException("JMH gave " + results.size() + " results for " + describe(library));
            }
            RunResult result = results.iterator().next();
            BenchmarkParams params = result.getParams();
            if (!library.equals(params.getParam("library"))) {
                throw new IllegalStateException("JMH ran " + params.getParam("library") + " for " + library);
            }
            return result;
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed for " + describe(library) + "; see " + log, e);
        }
    }

    private static String describe(String library) {
        return AcquireReleaseBenchmark.class.getSimpleName() + " library=" + library;
    }
}
