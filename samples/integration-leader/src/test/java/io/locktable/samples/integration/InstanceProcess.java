package io.locktable.samples.integration;

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
 * One instance of the sample in a JVM of its own: {@code java -cp <this test's class path>} with the sample's main
 * class, pointed at the test's engine and table with command-line properties, its output in a file under {@code
 * target/}. Killed with SIGKILL ({@link Process#destroyForcibly()}), so it releases nothing; it also exits when the
 * test's JVM dies (its {@link #main} watches the pipe of its standard input), so no instance outlives a run.
 */
final class InstanceProcess implements AutoCloseable {

    final String name;
    private final Process process;
    private final Path log;

    private InstanceProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code mainClass} with the engine's endpoint and the table, and the given properties. */
    static InstanceProcess start(
            String name, Class<?> mainClass, DynamoDbEngine engine, TestTable table, List<String> properties)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        if (engine.isLocal()) {
            command.add("-Daws.accessKeyId=local"); // any credentials do on loopback; else the default chain's
            command.add("-Daws.secretAccessKey=local");
        }
        command.add(InstanceProcess.class.getName());
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
        return new InstanceProcess(name, process, log);
    }

    private static String region(DynamoDbEngine engine) {
        try (DynamoDbClient client = engine.clientBuilder().build()) {
            return client.serviceClientConfiguration().region().id();
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: the instance stops at once, its leases neither renewed nor released. Waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("instance " + name + " still runs 30 s after SIGKILL");
        }
    }

    /** Kills every instance, each one whatever happens to the others; throws the first failure after. */
    static void killAll(List<InstanceProcess> instances) throws InterruptedException {
        instances.forEach(instance -> instance.process.destroyForcibly());
        AssertionError failure = null;
        for (InstanceProcess instance : instances) {
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

    /** The end of the instance's output, for a failure's message. */
    String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "--- " + name + " (" + log + "), last lines:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "--- " + name + ": no output (" + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * The child's entry point: runs the main class given first with the other arguments, and exits the JVM once its
     * standard input ends, which happens when the test's JVM dies without killing it (the pipe's other end closes).
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
