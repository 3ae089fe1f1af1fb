package io.locktable.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time the client side spends: the sum of the thread CPU times of this JVM's threads (the caller's, the
 * library's own, the SDK's, the GC's not included), without the harness's proxy, whose threads pump both libraries'
 * bytes alike. A thread that ends between two readings is not counted; neither library ends one during a count run.
 */
final class ClientCpu {

    private static final String PROXY_THREADS = "locktable-proxy";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> start;

    private ClientCpu(Map<Long, Long> start) {
        this.start = start;
    }

    /** Starts counting from now. */
    static ClientCpu start() {
        if (THREADS.isThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
        return new ClientCpu(read());
    }

    /** The client's CPU time since {@link #start()}, in nanoseconds. */
    long nanos() {
        long total = 0;
        for (Map.Entry<Long, Long> now : read().entrySet()) {
            total += now.getValue() - start.getOrDefault(now.getKey(), 0L);
        }
        return total;
    }

    private static Map<Long, Long> read() {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (thread == null || thread.getThreadName().startsWith(PROXY_THREADS)) {
                continue;
            }
            long nanos = THREADS.getThreadCpuTime(thread.getThreadId());
            if (nanos >= 0) {
                cpu.put(thread.getThreadId(), nanos);
            }
        }
        return cpu;
    }
}
