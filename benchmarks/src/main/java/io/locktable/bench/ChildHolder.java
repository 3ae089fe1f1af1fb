package io.locktable.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A {@link FailoverChild} JVM seen from the harness: started, told to release, or killed with SIGKILL. */
final class ChildHolder implements AutoCloseable {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "kill-failover-children"));
    }

    private final Process process;
    private final BufferedReader out;
    private final Writer in;

    private ChildHolder(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts a holder JVM and waits until it holds the lock.
     *
     * @param library {@code locktable}, {@code peer} or {@code peer-defaults}
     * @param endpoint the engine
     * @param table the table
     * @param name the lock
     * @param leaseMillis the lease
     * @param errors where the child's standard error goes
     * @return the child, holding the lock
     */
    static ChildHolder start(
            String library, String endpoint, String table, String name, long leaseMillis, Path errors) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                FailoverChild.class.getName(),
                library,
                endpoint,
                table,
                name,
                Long.toString(leaseMillis)));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(errors.toFile()))
                    .start();
            LIVE.add(process);
            ChildHolder child = new ChildHolder(process);
            String line = child.out.readLine();
            if (!"HELD".equals(line)) {
                child.close();
                throw new IllegalStateException("failover child for " + library + " said " + line + "; see " + errors);
            }
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a failover child", e);
        }
    }

    /** Kills the JVM at once, as {@code kill -9} does. */
    void kill() {
        process.destroyForcibly();
    }

    /** Asks the holder to release its lock; returns at once. */
    void askToRelease() {
        try {
            in.write("release\n");
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("could not ask the failover child to release", e);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(process);
    }
}
