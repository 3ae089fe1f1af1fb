package io.locktable.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A DynamoDB-compatible engine run as a child process on a loopback port: {@link DynaliteServer} and {@link
 * MotoServer}. It is started with its output going to a log file and its standard input a pipe that this JVM holds
 * open for the server's whole life: the server's launcher exits when that pipe reaches its end, so the server dies
 * with the JVM even when the JVM is killed and no shutdown hook runs. A new server is ready when it answers {@code
 * ListTables}.
 */
public abstract class LocalServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Process process;
    private final URI endpoint;
    private final Path log;

    /**
     * Starts the server and waits until it answers.
     *
     * @param name what it is called in messages
     * @param command the command, given the port to listen on
     * @param port the loopback port, or 0 for a free one
     * @param log where its output goes, given the port
     * @param howToInstall what to do when it cannot start or exits before it answers
     * @throws IllegalStateException if it could not start or did not answer
     */
    LocalServer(String name, IntFunction<List<String>> command, int port, IntFunction<Path> log, String howToInstall) {
        int chosen = port == 0 ? freePort(name) : port;
        List<String> arguments = command.apply(chosen);
        this.name = name;
        this.endpoint = URI.create("http://127.0.0.1:" + chosen);
        this.log = log.apply(chosen);
        try {
            this.process = new ProcessBuilder(arguments)
                    .redirectErrorStream(true)
                    .redirectOutput(this.log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Could not start " + name + " with " + String.join(" ", arguments) + " (" + e.getMessage() + "): "
                            + howToInstall,
                    e);
        }
        awaitAnswer(arguments, howToInstall);
    }

    /**
     * Where the server answers.
     *
     * @return its endpoint, {@code http://127.0.0.1:<port>}
     */
    public URI endpoint() {
        return endpoint;
    }

    /**
     * The process id of the server, so scripts can stop it.
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /** Stops the server and whatever it started. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the server when the JVM exits normally; it also stops when the JVM is killed (see above). */
    void stopAtExit() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, name + "-stop"));
    }

    /** Closes the server's standard input, as the JVM's death does: the server must then exit by itself. */
    void closeLifeline() throws IOException {
        process.getOutputStream().close();
    }

    /** The process, for tests that watch it end. */
    Process process() {
        return process;
    }

    private void awaitAnswer(List<String> command, String howToInstall) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        RuntimeException last = null;
        try (DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(DynamoDbEngines.LOCAL_CREDENTIALS)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build()) {
            while (System.nanoTime() < deadline && process.isAlive()) {
                try {
                    client.listTables();
                    return;
                } catch (RuntimeException e) {
                    last = e;
                    sleep(100);
                }
            }
        }
        String ending = process.isAlive()
                ? "did not answer at " + endpoint + " within " + START_TIMEOUT
                : "exited with code " + exitCode() + " before it answered at " + endpoint;
        close();
        throw new IllegalStateException(
                name + " " + ending + ": " + howToInstall + ". Command: " + String.join(" ", command) + "; last error: "
                        + last + ". Its log " + log + " ends with:\n" + tail(log),
                last);
    }

    private int exitCode() {
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static byte[] resource(String path) throws IOException {
        try (InputStream in = LocalServer.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IOException("resource " + path + " is missing from lock-test");
            }
            return in.readAllBytes();
        }
    }

    /**
     * Writes a file only if its content differs, through a temporary file of its own and an atomic move, so that
     * concurrent JVMs never see it half written.
     */
    static void writeIfChanged(Path file, byte[] content) throws IOException {
        if (!Files.exists(file) || !Arrays.equals(Files.readAllBytes(file), content)) {
            Path temporary = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp");
            try {
                Files.write(temporary, content);
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temporary);
            }
        }
    }

    static Path cacheDirectory(String property, String environment, String folder) {
        String configured = System.getProperty(property, System.getenv(environment));
        Path dir = configured != null && !configured.isBlank()
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "locktable", folder);
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Cannot create the cache folder " + dir + ": set " + property + " or " + environment
                            + " to a writable folder",
                    e);
        }
    }

    private static int freePort(String name) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port for " + name, e);
        }
    }

    static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a local engine to answer", e);
        }
    }
}
