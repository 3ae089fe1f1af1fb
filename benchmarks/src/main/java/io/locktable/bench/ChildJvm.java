package io.locktable.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A JVM of its own for what needs one: a lock holder that can be killed ({@code holder}), and the measurements of
 * threads and heap that must not see the harness ({@code scale}, {@code retention}; see {@link Scale}; {@code
 * waiters}, see {@link Waiters}). It answers
 * on standard output, exits when its standard input closes, and never lives longer than 20 minutes.
 */
public final class ChildJvm {

    private ChildJvm() {}

    /**
     * Runs a child.
     *
     * @param args {@code holder}, or {@code scale key=value...}, {@code retention key=value...} or {@code waiters
     *     key=value...}
     * @throws Exception if it fails
     */
    public static void main(String[] args) throws Exception {
        Thread guard = new Thread(
                () -> {
                    Stats.sleep(TimeUnit.MINUTES.toMillis(20));
                    Runtime.getRuntime().halt(3);
                },
                "bench-lifetime");
        guard.setDaemon(true);
        guard.start();
        Map<String, String> params = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            params.put(kv[0], kv[1]);
        }
        switch (args[0]) {
            case "holder" -> holder();
            case "scale" -> System.out.println("RESULT " + Scale.hold(params));
            case "retention" -> System.out.println("RESULT " + Scale.retention(params));
            case "waiters" ->
                Waiters.child(
                        params,
                        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                        System.out);
            default -> throw new IllegalArgumentException("unknown child " + args[0]);
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /** Reads {@code hold kind endpoint table name leaseMillis} and {@code release}, one at a time. */
    private static void holder() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Map<String, DynamoDbClient> clients = new HashMap<>();
        Map<String, Lib> libs = new HashMap<>();
        Lib lib = null;
        Object held = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            if (words[0].equals("hold")) {
                DynamoDbClient client = clients.computeIfAbsent(words[2], e -> Rig.client(URI.create(e)));
                Duration lease = Duration.ofMillis(Long.parseLong(words[5]));
                lib = libs.computeIfAbsent(String.join(" ", words[1], words[2], words[3], words[5]), k -> {
                    Lib fresh = Lib.of(words[1], client, words[3], lease);
                    // a cold JVM's first request can outlast a short lease, which the library then gives back
                    fresh.release(fresh.mustAcquire("warm-" + UUID.randomUUID()));
                    return fresh;
                });
                held = lib.tryAcquire(words[4]);
                System.out.println(held == null ? "BUSY" : lib.isHeld(held) ? "HELD" : "ENDED");
            } else if (words[0].equals("release") && lib != null && held != null) {
                lib.release(held);
                held = null;
                System.out.println("RELEASED");
            }
            System.out.flush();
        }
    }

    /** A child seen from the harness. */
    static final class Handle implements AutoCloseable {
        private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
        }

        private final Process process;
        private final BufferedReader out;
        private final Writer in;

        private Handle(Process process) {
            this.process = process;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        /** Starts a child with the harness's class path; its standard error goes to {@code errors}. */
        static Handle start(Path errors, String heap, String... args) {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + heap,
                    "-Xms" + (heap.equals("128m") ? "32m" : heap),
                    "-XX:+UseSerialGC",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ChildJvm.class.getName()));
            command.addAll(List.of(args));
            try {
                Process process = new ProcessBuilder(command)
                        .redirectError(ProcessBuilder.Redirect.appendTo(errors.toFile()))
                        .start();
                LIVE.add(process);
                return new Handle(process);
            } catch (IOException e) {
                throw new UncheckedIOException("could not start a child JVM", e);
            }
        }

        /** Sends a line and returns the answer. */
        String ask(String line) {
            try {
                in.write(line + "\n");
                in.flush();
                return answer();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Sends a line without waiting for the answer. */
        void tell(String line) {
            try {
                in.write(line + "\n");
                in.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The next line the child prints; {@code RESULT} lines lose their prefix. */
        String answer() throws IOException {
            String line = out.readLine();
            if (line == null) {
                throw new IllegalStateException("child exited with " + waitFor() + "; see benchmarks/target/bench");
            }
            return line.startsWith("RESULT ") ? line.substring(7) : line;
        }

        /** {@code kill -9}. */
        void kill() {
            process.destroyForcibly();
        }

        private int waitFor() {
            try {
                return process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        @Override
        public void close() {
            process.destroyForcibly();
            waitFor();
            LIVE.remove(process);
        }
    }

    /** Parses {@code key=value key=value} as a child prints it. */
    static Map<String, String> parse(String line) {
        Map<String, String> values = new HashMap<>();
        for (String pair : line.trim().split(" ")) {
            String[] kv = pair.split("=", 2);
            values.put(kv[0], kv.length > 1 ? kv[1] : "");
        }
        return values;
    }
}
