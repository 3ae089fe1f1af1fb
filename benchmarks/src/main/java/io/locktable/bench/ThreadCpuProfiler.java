package io.locktable.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * operation of the iteration. With the system property {@code bench.cpuPids} ({@code name:pid,...}), also the CPU
 * time of those processes and their descendants per operation of this JVM, as {@code cpu.<name>.norm}: the engine's
 * and the harness's (its proxy) while this fork runs its cycles through them.
 */
public final class ThreadCpuProfiler implements InternalProfiler {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> workersBefore = new HashMap<>();
    private final Map<String, Long> othersBefore = new HashMap<>();
    private long processBefore;

    @Override
    public String getDescription() {
        return "CPU time per operation: JMH's worker threads and the whole JVM";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        workersBefore.clear();
        workersBefore.putAll(workerCpu());
        othersBefore.clear();
        othersBefore.putAll(othersCpu());
        processBefore = processCpu();
    }

    @Override
    public Collection<? extends Result> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        long process = processCpu() - processBefore;
        Map<String, Long> others = othersCpu();
        long workers = 0;
        for (Map.Entry<Long, Long> now : workerCpu().entrySet()) {
            workers += now.getValue() - workersBefore.getOrDefault(now.getKey(), 0L);
        }
        long ops = result.getMetadata().getAllOps();
        if (ops <= 0) {
            return List.of();
        }
        List<Result> results = new ArrayList<>();
        results.add(new ScalarResult("cpu.worker.norm", workers / (double) ops, "ns/op", AggregationPolicy.AVG));
        results.add(new ScalarResult("cpu.process.norm", process / (double) ops, "ns/op", AggregationPolicy.AVG));
        others.forEach((name, nanos) -> results.add(new ScalarResult(
                "cpu." + name + ".norm",
                (nanos - othersBefore.getOrDefault(name, nanos)) / (double) ops,
                "ns/op",
                AggregationPolicy.AVG)));
        return results;
    }

    /** The CPU time of each process named by {@code bench.cpuPids}, with its descendants'. */
    private static Map<String, Long> othersCpu() {
        Map<String, Long> cpu = new TreeMap<>();
        String pids = System.getProperty("bench.cpuPids", "");
        for (String entry : pids.split(",")) {
            int colon = entry.indexOf(':');
            if (colon < 0) {
                continue;
            }
            ProcessHandle.of(Long.parseLong(entry.substring(colon + 1))).ifPresent(process -> {
                long nanos = cpuNanos(process)
                        + process.descendants()
                                .mapToLong(ThreadCpuProfiler::cpuNanos)
                                .sum();
                cpu.put(entry.substring(0, colon), nanos);
            });
        }
        return cpu;
    }

    private static long cpuNanos(ProcessHandle process) {
        return process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
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
