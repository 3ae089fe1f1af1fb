package io.locktable.bench;

import com.sun.management.GarbageCollectorMXBean;
import com.sun.management.GcInfo;
import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTableListener;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Many leases held by one library instance, measured in a child JVM of its own so that its threads and heap are
 * the library's: how long acquiring them takes, the threads added, the heap per held lease, and how late each
 * renewal is sent. Also the heap a released lease leaves behind.
 */
final class Scale {

    private Scale() {}

    /**
     * Renewal lateness: a renewal (or heartbeat) of lease {@code i} is due one period after the previous send of
     * that lease, acquire included, as lock-core schedules it; the lateness is how much later it is sent, seen by a
     * request interceptor on the sending thread. A lease still waiting for its renewal when the observation ends
     * counts with the lateness it has reached by then, so a renewal that never came is not left out.
     */
    static final class Lateness {
        private final long period;
        private final long[] last;
        private final long[] samples;
        private final AtomicInteger count = new AtomicInteger();
        private final AtomicInteger renewals = new AtomicInteger();
        private volatile boolean on = true;

        Lateness(int leases, long periodNanos) {
            this.period = periodNanos;
            this.last = new long[leases];
            this.samples = new long[leases * 8];
        }

        void sent(int lease, long nanos) {
            if (!on) {
                return;
            }
            long previous;
            synchronized (this) {
                previous = last[lease];
                last[lease] = nanos;
            }
            if (previous != 0) {
                renewals.incrementAndGet();
                add(nanos - previous - period);
            }
        }

        private void add(long late) {
            int i = count.getAndIncrement();
            if (i < samples.length) {
                samples[i] = late;
            }
        }

        /** Stops recording and adds the overdue leases at {@code now}. */
        synchronized Stats stop(long now) {
            on = false;
            for (long previous : last) {
                if (previous != 0 && now - previous - period > 0) {
                    add(now - previous - period);
                }
            }
            int n = Math.min(count.get(), samples.length);
            double[] values = new double[n];
            for (int i = 0; i < n; i++) {
                values[i] = samples[i];
            }
            return Stats.of(values);
        }
    }

    /**
     * Acquires {@code n} leases on {@code threads} caller threads, holds them for {@code observeMs} after the last
     * acquire, and measures. Parameters: kind (locktable or peer), endpoint, table, n, leaseMs, threads, observeMs,
     * workers (LockTable's schedulerThreads, 0 for its default), clientTimeoutMs (a client-wide apiCallTimeout, 0
     * for none). Threads are counted in all, and as the library's own and the SDK's ({@code sdk-*}, the timeout
     * threads of the client's scheduled executor).
     */
    static String hold(Map<String, String> p) throws Exception {
        int n = Integer.parseInt(p.get("n"));
        Duration lease = Duration.ofMillis(Long.parseLong(p.get("leaseMs")));
        boolean ours = p.get("kind").equals("locktable");
        String prefix = ours ? "LOCK#s-" : "s-";
        Lateness lateness = new Lateness(n, lease.toNanos() / 3);
        Counter counter = new Counter((op, key, nanos) -> {
            if (key != null && key.startsWith(prefix) && (op.equals("UpdateItem") || op.equals("PutItem"))) {
                lateness.sent(Integer.parseInt(key, prefix.length(), key.length(), 10), nanos);
            }
        });
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger late = new AtomicInteger();
        LockTableListener listener = new LockTableListener() {
            @Override
            public void onLost(Lease gone, LeaseEnd reason) {
                lost.incrementAndGet();
            }

            @Override
            public void onRenewalLate(Lease lease, Duration by) {
                late.incrementAndGet();
            }
        };
        Object[] held = new Object[n];
        int workers = Integer.parseInt(p.getOrDefault("workers", "0"));
        long clientTimeoutMs = Long.parseLong(p.getOrDefault("clientTimeoutMs", "0"));
        DynamoDbClient client = Rig.client(
                URI.create(p.get("endpoint")),
                clientTimeoutMs > 0 ? Duration.ofMillis(clientTimeoutMs) : null,
                counter);
        for (int i = 0; i < 5; i++) {
            client.listTables(); // the client's own threads and first connection, before the baseline
        }
        ThreadPoolExecutor callers = (ThreadPoolExecutor)
                Executors.newFixedThreadPool(Integer.parseInt(p.get("threads")), r -> new Thread(r, "bench-caller"));
        callers.prestartAllCoreThreads();
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        Lib lib = ours
                ? Lib.locktable(client, p.get("table"), lease, b -> {
                    b.listener(listener);
                    return workers > 0 ? b.schedulerThreads(workers) : b;
                })
                : Lib.peer(client, p.get("table"), lease);
        parallel(callers, 100, i -> lib.release(lib.mustAcquire("warm-" + i)));
        long heapBefore = heapAfterGc();
        long start = System.nanoTime();
        parallel(callers, n, i -> held[i] = lib.mustAcquire("s-" + i));
        long acquired = System.nanoTime();
        long observeUntil =
                acquired + Duration.ofMillis(Long.parseLong(p.get("observeMs"))).toNanos();
        Map<String, Integer> peakThreads = Map.of();
        int peak = -1;
        int peakLibrary = 0;
        int peakSdk = 0;
        while (System.nanoTime() < observeUntil) {
            Map<String, Integer> added = threadsAdded(before);
            int total = added.values().stream().mapToInt(Integer::intValue).sum();
            if (total > peak) {
                peak = total;
                peakThreads = added;
            }
            peakLibrary = Math.max(peakLibrary, count(added, name -> !name.startsWith("sdk-")));
            peakSdk = Math.max(peakSdk, count(added, name -> name.startsWith("sdk-")));
            Stats.sleep(250);
        }
        Stats rates = lateness.stop(System.nanoTime());
        int stillHeld = 0;
        for (Object h : held) {
            stillHeld += lib.isHeld(h) ? 1 : 0;
        }
        long heapAfter = heapAfterGc();
        return String.join(
                " ",
                "acquireSeconds=" + (acquired - start) / 1e9,
                "threads=" + peak,
                "threadsLibrary=" + peakLibrary,
                "threadsSdk=" + peakSdk,
                "threadNames=" + peakThreads.toString().replace(" ", "").replace(p.get("table"), "<table>"),
                "heapPerLease=" + (heapAfter - heapBefore) / (double) n,
                "p50=" + rates.median(),
                "p99=" + rates.pct(99),
                "max=" + rates.max(),
                "renewals=" + lateness.renewals.get(),
                "late=" + late.get(),
                "lost=" + Math.max(lost.get(), n - stillHeld));
    }

    /**
     * Acquires and releases {@code cycles} locks, each of a name of its own, one after the other, then measures the
     * heap still reachable per released lease at once and again after {@code waitMs} (when every timer a request set
     * has run out). Parameters: kind, endpoint, table, cycles, waitMs.
     */
    static String retention(Map<String, String> p) {
        int cycles = Integer.parseInt(p.get("cycles"));
        Duration lease = Duration.ofSeconds(60);
        try (DynamoDbClient client = Rig.client(URI.create(p.get("endpoint")));
                Lib lib = Lib.of(p.get("kind"), client, p.get("table"), lease)) {
            for (int i = 0; i < 200; i++) {
                lib.release(lib.mustAcquire("warm-" + i));
            }
            long before = heapAfterGc();
            for (int i = 0; i < cycles; i++) {
                lib.release(lib.mustAcquire("released-" + i));
            }
            long now = heapAfterGc();
            Stats.sleep(Long.parseLong(p.get("waitMs")));
            long later = heapAfterGc();
            return "now=" + (now - before) / (double) cycles + " later=" + (later - before) / (double) cycles;
        }
    }

    private interface Task {
        void run(int i) throws Exception;
    }

    private static void parallel(ExecutorService pool, int n, Task task) throws Exception {
        AtomicLong next = new AtomicLong();
        List<Future<?>> futures = new ArrayList<>();
        int threads = ((ThreadPoolExecutor) pool).getCorePoolSize();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                for (int i = (int) next.getAndIncrement(); i < n; i = (int) next.getAndIncrement()) {
                    task.run(i);
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
    }

    static int count(Map<String, Integer> threads, Predicate<String> which) {
        return threads.entrySet().stream()
                .filter(e -> which.test(e.getKey()))
                .mapToInt(Map.Entry::getValue)
                .sum();
    }

    /**
     * Threads alive now that were not before, by name without numbers, leaving out the harness's callers and the
     * JVM's own (a jcmd or debugger attaching).
     */
    static Map<String, Integer> threadsAdded(Set<Thread> before) {
        Map<String, Integer> added = new TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive()
                    && !before.contains(t)
                    && !t.getName().startsWith("bench-")
                    && !t.getName().equals("Attach Listener")) {
                added.merge(t.getName().replaceAll("(-\\d+)+$", ""), 1, Integer::sum);
            }
        }
        return added;
    }

    /** The heap in use right after full collections, as the collector reports it. */
    static long heapAfterGc() {
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            GcInfo latest = null;
            for (var bean : ManagementFactory.getGarbageCollectorMXBeans()) {
                GcInfo info = bean instanceof GarbageCollectorMXBean gc ? gc.getLastGcInfo() : null;
                if (info != null && (latest == null || info.getEndTime() > latest.getEndTime())) {
                    latest = info;
                }
            }
            long sum = 0;
            if (latest != null) {
                for (var pool : latest.getMemoryUsageAfterGc().entrySet()) {
                    sum += heapPools.contains(pool.getKey()) ? pool.getValue().getUsed() : 0;
                }
            }
            used = Math.min(used, sum);
            Stats.sleep(50);
        }
        return used;
    }
}
