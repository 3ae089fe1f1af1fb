package io.locktable.bench;

import io.locktable.Lease;
import io.locktable.LockTable;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Many acquires of one table waiting for locks that another table holds: the threads they add, the heap per waiter
 * and the requests each sends while it waits, then the handovers when the holder releases. The waiters run in a child
 * JVM of their own (so that its threads and heap are theirs); the holder is a LockTable of the harness over a client
 * of its own. Three ways to wait: {@code acquireAsync} ({@code async}), the blocking {@code acquire} on a platform
 * thread each ({@code blocking}), and on a virtual thread each ({@code virtual}, Java 21 and later only), all over
 * the synchronous client; and {@code acquireAsync} over the asynchronous client ({@code async-client}).
 */
final class Waiters {

    /** Every waiter asks for this lease; the holder holds one as long, so a waiter polls every 10 s. */
    static final Duration LEASE = Duration.ofSeconds(30);

    /** How often a waiter for such a holder reads, without the jitter (up to a tenth more). */
    static final Duration POLL = Duration.ofSeconds(10);

    private Waiters() {}

    /** Whether this JVM (and so the child, which runs on the same {@code java.home}) has virtual threads. */
    static boolean virtualThreads() {
        return Runtime.version().feature() >= 21;
    }

    /** What one way of waiting measured. */
    record Result(
            String id, int n, int locks, Map<String, String> child, List<Long> crossTable, List<Long> sameTable) {}

    /**
     * The harness's side: holds {@code locks} locks with a table of its own, starts a child with {@code n} waiters
     * spread over them, lets it count while they wait, then releases the locks one at a time and times each handover
     * to a waiter of the child (from the release's return to the child's line saying a waiter holds the lock; the pipe
     * adds well under a millisecond). In the child, each winner releases to the next waiter of the same lock
     * ({@code sameRounds} times per lock), timed there.
     */
    static Result run(
            Rig rig,
            int rtt,
            String mode,
            Duration spread,
            int n,
            int locks,
            Duration window,
            int sameRounds,
            Path errors)
            throws Exception {
        String table = rig.newOursTable("bench-waiters");
        String prefix = "wait-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        Stats.log("  " + mode + ": " + n + " waiters on " + locks + " lock(s) held by another table, at " + rtt
                + " ms, started over " + spread.toMillis() + " ms, counted for " + window.toSeconds() + " s");
        try (DynamoDbClient client = Rig.client(rig.at(rtt));
                LockTable holder =
                        LockTable.builder(client, table, Rig.OURS_KEY).build()) {
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                held.add(holder.tryAcquire(prefix + i, LEASE)
                        .orElseThrow(() -> new IllegalStateException("a free lock was busy")));
            }
            try (ChildJvm.Handle child = ChildJvm.Handle.start(
                    errors,
                    "1g",
                    "waiters",
                    "mode=" + mode,
                    "spreadMs=" + spread.toMillis(),
                    "endpoint=" + rig.at(rtt),
                    "table=" + table,
                    "prefix=" + prefix,
                    "n=" + n,
                    "locks=" + locks,
                    "windowMs=" + window.toMillis(),
                    "sameRounds=" + sameRounds)) {
                Map<String, String> counted = ChildJvm.parse(child.answer());
                Stats.log("    " + counted);
                List<Long> cross = new ArrayList<>();
                for (int i = 0; i < locks; i++) {
                    held.get(i).release();
                    long released = System.nanoTime();
                    String won = child.answer();
                    long at = System.nanoTime();
                    if (!won.equals("WON " + i)) {
                        throw new IllegalStateException(mode + ": the child said " + won + " for lock " + i);
                    }
                    cross.add(at - released);
                }
                Map<String, String> done = ChildJvm.parse(child.ask("report"));
                List<Long> same = new ArrayList<>();
                for (String v : done.getOrDefault("same", "").split(",")) {
                    if (!v.isEmpty()) {
                        same.add(Long.parseLong(v));
                    }
                }
                String id = spread.isZero() ? mode : mode + ".spread";
                return new Result(id, n, locks, counted, cross, same);
            }
        } finally {
            rig.deleteTable(table);
        }
    }

    /**
     * The child's side. Parameters: mode, spreadMs (the waiters start evenly over it, from this thread, or all at
     * once), endpoint, table, prefix, n, locks, windowMs, sameRounds. Prints the counts of the wait as one line, then
     * {@code WON i} when a waiter first holds lock {@code i}, and on {@code report} the same-table handover times
     * ({@code same=nanos,...}).
     */
    static void child(Map<String, String> p, BufferedReader in, PrintStream out) throws Exception {
        String mode = p.get("mode");
        int n = Integer.parseInt(p.get("n"));
        int locks = Integer.parseInt(p.get("locks"));
        int sameRounds = Integer.parseInt(p.get("sameRounds"));
        String prefix = p.get("prefix");
        Counter counter = new Counter();
        LockTable table;
        URI endpoint = URI.create(p.get("endpoint"));
        if (mode.equals("async-client")) {
            DynamoDbAsyncClient client = Rig.asyncClient(endpoint, counter);
            for (int i = 0; i < 5; i++) {
                client.listTables().join(); // the client's own threads and first connection, before the baseline
            }
            table = LockTable.builder(client, p.get("table"), Rig.OURS_KEY).build();
        } else {
            DynamoDbClient client = Rig.client(endpoint, counter);
            for (int i = 0; i < 5; i++) {
                client.listTables(); // the client's own threads and first connection, before the baseline
            }
            table = LockTable.builder(client, p.get("table"), Rig.OURS_KEY).build();
        }
        table.tryAcquire("warm-" + UUID.randomUUID(), LEASE).orElseThrow().release();
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        long heapBefore = Scale.heapAfterGc();

        Handovers handovers = new Handovers(locks, sameRounds, out);
        ExecutorService virtual = mode.equals("virtual") ? virtualPerTask() : null;
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<Lease>> futures = new ArrayList<>(); // kept, as a caller keeps what it waits for
        long spreadNanos = Duration.ofMillis(Long.parseLong(p.get("spreadMs"))).toNanos();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long due = start + spreadNanos * i / n;
            while (System.nanoTime() < due) {
                Stats.sleep(1);
            }
            int lock = i % locks;
            String name = prefix + lock;
            switch (mode) {
                case "async", "async-client" -> {
                    CompletableFuture<Lease> waiting = table.acquireAsync(name, LEASE);
                    waiting.thenAccept(lease -> handovers.won(lock, lease));
                    futures.add(waiting);
                }
                case "blocking" -> {
                    Thread t = new Thread(() -> waitFor(table, name, lock, handovers), "waiter-" + i);
                    t.setDaemon(true);
                    t.start();
                    threads.add(t);
                }
                case "virtual" -> virtual.execute(() -> waitFor(table, name, lock, handovers));
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        }
        // every waiter has sent its first request: from here on each one only polls
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (requests(counter, prefix, locks) < n && System.nanoTime() < deadline) {
            Stats.sleep(100);
        }
        long started = System.nanoTime() - start;
        Stats.sleep(1_000);
        counter.reset();
        long windowNanos = Duration.ofMillis(Long.parseLong(p.get("windowMs"))).toNanos();
        long windowStart = System.nanoTime();
        int peak = 0;
        Map<String, Integer> peakThreads = Map.of();
        int peakLibrary = 0;
        int peakSdk = 0;
        while (System.nanoTime() - windowStart < windowNanos) {
            Map<String, Integer> added = Scale.threadsAdded(before);
            int all = Scale.count(added, name -> true);
            if (all > peak) {
                peak = all;
                peakThreads = added;
            }
            peakLibrary = Math.max(peakLibrary, Scale.count(added, name -> name.startsWith("locktable-")));
            peakSdk = Math.max(
                    peakSdk, Scale.count(added, name -> name.startsWith("sdk-") || name.startsWith("aws-java-sdk-")));
            Stats.sleep(250);
        }
        double minutes = (System.nanoTime() - windowStart) / 60e9;
        long reads = 0;
        long writes = 0;
        for (int i = 0; i < locks; i++) {
            reads += counter.reads("LOCK#" + prefix + i);
            writes += counter.writes("LOCK#" + prefix + i);
        }
        long heapAfter = Scale.heapAfterGc();
        handovers.armed = true; // from here on a win is a handover: the harness releases once it has this line
        out.println("RESULT "
                + String.join(
                        " ",
                        "startSeconds=" + started / 1e9,
                        "threads=" + peak,
                        "threadsLibrary=" + peakLibrary,
                        "threadsSdk=" + peakSdk,
                        "threadNames=" + peakThreads.toString().replace(" ", "").replace(p.get("table"), "<table>"),
                        "heapPerWaiter=" + (heapAfter - heapBefore) / (double) n,
                        "readsPerMinute=" + reads / minutes / n,
                        "writesPerMinute=" + writes / minutes / n,
                        "won=" + handovers.wins()));
        out.flush();
        String line;
        while ((line = in.readLine()) != null && !line.equals("report")) {
            // the harness releases the locks meanwhile
        }
        handovers.awaitSameRounds(Duration.ofSeconds(60));
        out.println("RESULT same="
                + String.join(",", handovers.same.stream().map(String::valueOf).toList()));
        out.flush();
    }

    private static void waitFor(LockTable table, String name, int lock, Handovers handovers) {
        try {
            handovers.won(lock, table.acquire(name, LEASE));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long requests(Counter counter, String prefix, int locks) {
        long sum = 0;
        for (int i = 0; i < locks; i++) {
            sum += counter.reads("LOCK#" + prefix + i) + counter.writes("LOCK#" + prefix + i);
        }
        return sum;
    }

    /** Java 21's {@code Executors.newVirtualThreadPerTaskExecutor()}, found at run time (the module targets 17). */
    private static ExecutorService virtualPerTask() {
        if (!virtualThreads()) {
            throw new IllegalStateException("virtual threads need Java 21 or later, this is " + Runtime.version());
        }
        try {
            return (ExecutorService)
                    Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("no virtual threads", e);
        }
    }

    /**
     * The wins of each lock: the first is a handover from the other table (the harness times it from this line), each
     * later one from this table's previous winner, which releases {@code sameRounds} times per lock.
     */
    private static final class Handovers {
        final int sameRounds;
        final PrintStream out;
        final AtomicIntegerArray wins;
        final AtomicLongArray releasedAt;
        final ConcurrentLinkedQueue<Long> same = new ConcurrentLinkedQueue<>();
        volatile boolean armed;

        Handovers(int locks, int sameRounds, PrintStream out) {
            this.sameRounds = sameRounds;
            this.out = out;
            this.wins = new AtomicIntegerArray(locks);
            this.releasedAt = new AtomicLongArray(locks);
        }

        void won(int lock, Lease lease) {
            long at = System.nanoTime();
            int win = wins.incrementAndGet(lock);
            if (!armed) {
                return; // a waiter took a live holder's lock: the count line shows it (won=...)
            }
            if (win == 1) {
                out.println("WON " + lock);
                out.flush();
            } else {
                long released;
                while ((released = releasedAt.get(lock)) == 0) {
                    Thread.onSpinWait(); // the previous winner's release() is returning
                }
                same.add(at - released);
            }
            if (win <= sameRounds) {
                releasedAt.set(lock, 0);
                lease.release();
                releasedAt.set(lock, System.nanoTime());
            }
        }

        int wins() {
            int sum = 0;
            for (int i = 0; i < wins.length(); i++) {
                sum += wins.get(i);
            }
            return sum;
        }

        void awaitSameRounds(Duration max) throws TimeoutException {
            long deadline = System.nanoTime() + max.toNanos();
            while (same.size() < wins.length() * sameRounds) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("only " + same.size() + " same-table handovers");
                }
                Stats.sleep(20);
            }
        }
    }
}
