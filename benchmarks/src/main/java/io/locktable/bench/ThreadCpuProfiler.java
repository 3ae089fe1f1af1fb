package io.locktable.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler ({@code -prof io.locktable.bench.ThreadCpuProfiler}) that reports processor time per operation,
 * which a loaded machine distorts far less than the elapsed time: {@code cpu.worker.norm}, the CPU time of JMH's
 * benchmark threads (the caller's thread, where both libraries send their requests), and {@code cpu.process.norm},
 * the whole JVM's (the libraries' own threads, the garbage collector and the JIT compiler too), in nanoseconds per
 * operation of the iteration.
 */
public final class ThreadCpuProfiler implements InternalProfiler {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> workersBefore = new HashMap<>();
    private long processBefore;

    @Override
    public String getDescription() {
        return "CPU time per operation: JMH's worker threads and the whole JVM";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        workersBefore.clear();
        workersBefore.putAll(workerCpu());
        processBefore = processCpu();
    }

    @Override
    public Collection<? extends Result> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        long process = processCpu() - processBefore;
        long workers = 0;
        for (Map.Entry<Long, Long> now : workerCpu().entrySet()) {
            workers += now.getValue() - workersBefore.getOrDefault(now.getKey(), 0L);
        }
        long ops = result.getMetadata().getAllOps();
        if (ops <= 0) {
            return List.of();
        }
        return List.of(
                new ScalarResult("cpu.worker.norm", workers / (double) ops, "ns/op", AggregationPolicy.AVG),
                new ScalarResult("cpu.process.norm", process / (double) ops, "ns/op", AggregationPolicy.AVG));
    }

    /** The CPU time of each live JMH worker thread, by thread id. */
    private static Map<Long, Long> workerCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains("jmh-worker")) {
                long nanos = THREADS.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) {
                    cpu.put(info.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
