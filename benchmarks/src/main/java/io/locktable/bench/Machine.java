package io.locktable.bench;

import com.sun.management.GarbageCollectorMXBean;
import com.sun.management.GcInfo;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/** Facts about this JVM and machine: cores, memory, load, heap after a collection, threads. */
public final class Machine {

    private Machine() {}

    /**
     * The heap in use right after full collections, as the collector reports it, so what is left is what is still
     * referenced: garbage that other threads allocate after the collection does not count.
     *
     * @return bytes in use
     */
    public static long usedHeapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, heapAfterLastGc());
            sleep(50);
        }
        return used;
    }

    private static long heapAfterLastGc() {
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        GcInfo latest = null;
        for (java.lang.management.GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof GarbageCollectorMXBean gc) {
                GcInfo info = gc.getLastGcInfo();
                if (info != null && (latest == null || info.getEndTime() > latest.getEndTime())) {
                    latest = info;
                }
            }
        }
        if (latest == null) {
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool :
                latest.getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        return used;
    }

    /**
     * The live threads of this JVM.
     *
     * @return how many
     */
    public static int threads() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.getThreadCount();
    }

    /**
     * The live threads now, to compare with later.
     *
     * @return the threads
     */
    public static Set<Thread> threadSnapshot() {
        return Set.copyOf(Thread.getAllStackTraces().keySet());
    }

    /**
     * The live threads that were not alive in an earlier snapshot, by name with the table name and numbers left out.
     *
     * @param before the earlier snapshot
     * @param table a table name to leave out of thread names
     * @return how many threads of each kind, such as {@code locktable-<table>-worker: 2}
     */
    public static Map<String, Integer> threadsAddedSince(Set<Thread> before, String table) {
        Map<String, Integer> added = new TreeMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && !before.contains(thread)) {
                String kind = thread.getName().replace(table, "<table>").replaceAll("(-\\d+)+$", "");
                added.merge(kind, 1, Integer::sum);
            }
        }
        return added;
    }

    /**
     * The live threads whose name starts with a prefix.
     *
     * @param prefix the prefix
     * @return how many
     */
    public static int threadsNamed(String prefix) {
        Set<Thread> all = Thread.getAllStackTraces().keySet();
        return (int) all.stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .count();
    }

    /**
     * The 1-minute load average, or NaN where {@code /proc/loadavg} is missing.
     *
     * @return the load
     */
    public static double loadAverage() {
        try {
            String text = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII);
            return Double.parseDouble(text.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * The machine: cores and memory.
     *
     * @return such as {@code 2 cores, 24 GiB}
     */
    public static String describe() {
        long bytes = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return Runtime.getRuntime().availableProcessors() + " cores, " + Math.round(bytes / (1024.0 * 1024 * 1024))
                + " GiB, " + System.getProperty("os.name") + " " + System.getProperty("os.arch");
    }

    /**
     * The version of a command such as {@code node}, or {@code unknown}.
     *
     * @param command the command and its arguments
     * @return its first line of output
     */
    public static String commandOutput(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            process.waitFor(10, TimeUnit.SECONDS);
            return out.lines().findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * Sleeps, turning an interruption into an unchecked exception with the flag set again.
     *
     * @param millis how long
     */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
