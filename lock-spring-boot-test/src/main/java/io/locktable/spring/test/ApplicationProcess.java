package io.locktable.spring.test;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.TestTable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One instance of a Spring Boot application that uses the starter, in a JVM of its own, for tests of what happens
 * across instances (one holder at a time, a takeover after a crash): {@code java -cp <this test's class path>} with
 * the application's main class, pointed at the test's engine and table with command-line properties ({@code
 * locktable.dynamodb.endpoint}, {@code locktable.table-name}, the keys, {@code locktable.holder} = the instance's
 * name), its output in {@code target/instances/}. {@link #kill()} is SIGKILL, so the instance releases nothing, as a
 * crashed one; it also exits by itself when the test's JVM dies (it watches the pipe of its standard input), so no
 * instance outlives a run.
 *
 * <pre>{@code
 * @DynamoDbEngineTest
 * class FailoverTest {
 *     @Test
 *     void theOtherInstanceTakesOver(DynamoDbEngine engine, TestTable table) throws Exception {
 *         List<ApplicationProcess> both = List.of(
 *                 ApplicationProcess.start("a", MyApplication.class, engine, table, List.of("server.port=0")),
 *                 ApplicationProcess.start("b", MyApplication.class, engine, table, List.of("server.port=0")));
 *         try {
 *             // ... find the holder, holder.kill(), and see the other take over
 *         } finally {
 *             ApplicationProcess.killAll(both);
 *         }
 *     }
 * }
 * }</pre>
 */
public final class ApplicationProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;

    private ApplicationProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code mainClass} with the engine's endpoint and the table, and the given properties.
     *
     * @param name the instance's name, also its {@code locktable.holder}
     * @param mainClass the application's class with a {@code main} method
     * @param engine the test's engine (local engines get placeholder credentials; others use the default chain)
     * @param table the test's table
     * @param properties more properties, each {@code name=value}
     * @return the running instance
     * @throws IOException if the JVM could not be started
     */
    public static ApplicationProcess start(
            String name, Class<?> mainClass, DynamoDbEngine engine, TestTable table, List<String> properties)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        if (engine.isLocal()) {
            command.add("-Daws.accessKeyId=local"); // any credentials do on loopback; else the default chain's
            command.add("-Daws.secretAccessKey=local");
        }
        command.add(ApplicationProcess.class.getName());
        command.add(mainClass.getName());
        command.add("--locktable.dynamodb.endpoint=" + engine.endpoint());
        command.add("--locktable.dynamodb.region=" + region(engine));
        command.add("--locktable.table-name=" + table.name());
        command.add("--locktable.create-table=false");
        command.add("--locktable.partition-key=" + table.partitionKey());
        command.add("--locktable.sort-key=" + table.sortKey().orElse(""));
        command.add("--locktable.holder=" + name);
        properties.forEach(property -> command.add("--" + property));
        Path log = Path.of("target", "instances", table.name() + "-" + name + ".log");
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new ApplicationProcess(name, process, log);
    }

    private static String region(DynamoDbEngine engine) {
        try (DynamoDbClient client = engine.clientBuilder().build()) {
            return client.serviceClientConfiguration().region().id();
        }
    }

    /**
     * The instance's name.
     *
     * @return the name given to {@link #start}
     */
    public String name() {
        return name;
    }

    /**
     * Tells whether the instance's JVM still runs.
     *
     * @return true until it exited or was killed
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * SIGKILL: the instance stops at once, its leases neither renewed nor released. Waits until it is gone.
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws AssertionError if it still runs 30 s later
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("instance " + name + " still runs 30 s after SIGKILL");
        }
    }

    /**
     * Kills every instance, each one whatever happens to the others; throws the first failure after.
     *
     * @param instances the instances
     * @throws InterruptedException if interrupted while waiting
     */
    public static void killAll(List<ApplicationProcess> instances) throws InterruptedException {
        instances.forEach(instance -> instance.process.destroyForcibly());
        AssertionError failure = null;
        for (ApplicationProcess instance : instances) {
            try {
                instance.kill();
            } catch (AssertionError e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The last 40 lines of the instance's output, for a failure's message.
     *
     * @return the lines, headed by the instance's name and log file
     */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "--- " + name + " (" + log + "), last lines:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "--- " + name + ": no output (" + e + ")";
        }
    }

    /** Kills the instance ({@link #kill()}). */
    @Override
    public void close() throws InterruptedException {
        kill();
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * The child JVM's entry point, not for tests to call: runs the main class given first with the other arguments, and exits the JVM once its
     * standard input ends, which happens when the test's JVM dies without killing it (the pipe's other end closes).
     */
    /**
     * @param args the main class, then its arguments
     * @throws Exception what the application's main method threw
     */
    public static void main(String[] args) throws Exception {
        Thread watcher = new Thread(
                () -> {
                    try (InputStream in = System.in) {
                        while (in.read() >= 0) {
                            // nothing is written to it: it only ends
                        }
                    } catch (IOException e) {
                        // the pipe broke: the parent is gone all the same
                    }
                    Runtime.getRuntime().halt(1);
                },
                "exit-with-parent");
        watcher.setDaemon(true);
        watcher.start();
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        main.invoke(null, (Object) List.of(args).subList(1, args.length).toArray(String[]::new));
    }
}
