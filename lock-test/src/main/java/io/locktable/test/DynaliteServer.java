package io.locktable.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A local dynalite (the open-source DynamoDB implementation on Node.js) for tests and demos: installed on first use
 * with {@code npm ci} from the committed {@code package.json} and {@code package-lock.json} into a cache folder,
 * started on a free loopback port, in memory, and stopped when the JVM exits.
 *
 * <p>The cache folder is {@code ~/.cache/locktable/dynalite-4.0.0}, or the system property {@code
 * locktable.dynalite.cache}, or the environment variable {@code LOCKTABLE_DYNALITE_CACHE}. A file lock there keeps
 * concurrent JVMs from installing at the same time. It needs Node.js 20 or newer on the {@code PATH}.
 *
 * <pre>{@code
 * URI endpoint = DynaliteServer.shared().endpoint();
 * }</pre>
 */
public final class DynaliteServer implements AutoCloseable {

    static final String VERSION = "4.0.0";
    private static final String RESOURCES = "/io/locktable/test/dynalite/";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static DynaliteServer shared;

    private final Process process;
    private final URI endpoint;
    private final Path log;

    private DynaliteServer(Process process, URI endpoint, Path log) {
        this.process = process;
        this.endpoint = endpoint;
        this.log = log;
    }

    /**
     * The dynalite of this JVM, installed and started on first use, stopped at JVM exit.
     *
     * @return the shared server
     * @throws IllegalStateException if Node.js is missing or too old, {@code npm ci} failed, or the server did not
     *     answer; the message says what to install or check
     */
    public static synchronized DynaliteServer shared() {
        if (shared == null || !shared.process.isAlive()) {
            shared = start(0);
            DynaliteServer server = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "dynalite-stop"));
        }
        return shared;
    }

    /**
     * Installs dynalite if needed and starts a new server; the caller stops it with {@link #close()}.
     *
     * @param port the loopback port, or 0 for a free one
     * @return the running server
     * @throws IllegalStateException as {@link #shared()}
     */
    public static DynaliteServer start(int port) {
        Path cache = cacheDirectory();
        Path server = install(cache);
        int chosen = port == 0 ? freePort() : port;
        Path log = cache.resolve("dynalite-" + chosen + ".log");
        List<String> command = List.of("node", server.toString(), Integer.toString(chosen), "127.0.0.1");
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Could not start dynalite with " + String.join(" ", command)
                            + ": install Node.js 20 or newer and put node on the PATH",
                    e);
        }
        DynaliteServer started = new DynaliteServer(process, URI.create("http://127.0.0.1:" + chosen), log);
        started.awaitAnswer(command);
        return started;
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

    private void awaitAnswer(List<String> command) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        RuntimeException last = null;
        try (DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(DynamoDbEngines.LOCAL_CREDENTIALS)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build()) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    break;
                }
                try {
                    client.listTables();
                    return;
                } catch (RuntimeException e) {
                    last = e;
                    sleep(100);
                }
            }
        }
        close();
        throw new IllegalStateException(
                "dynalite did not answer at " + endpoint + " within " + START_TIMEOUT
                        + " (command: " + String.join(" ", command) + "; last error: " + last + "). Its log " + log
                        + " ends with:\n" + tail(log),
                last);
    }

    static Path cacheDirectory() {
        String configured = System.getProperty("locktable.dynalite.cache", System.getenv("LOCKTABLE_DYNALITE_CACHE"));
        Path dir = configured != null && !configured.isBlank()
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "locktable", "dynalite-" + VERSION);
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Cannot create the dynalite cache folder " + dir
                            + ": set locktable.dynalite.cache or LOCKTABLE_DYNALITE_CACHE to a writable folder",
                    e);
        }
    }

    /**
     * Installs dynalite into the cache once, under a file lock; returns the launcher script, which starts it in
     * memory with no table delays and survives clients that drop a connection mid-request.
     */
    static Path install(Path cache) {
        checkNode();
        Path cli = cache.resolve("node_modules/dynalite/cli.js");
        Path launcher = cache.resolve("server.js");
        try (FileChannel channel = FileChannel.open(
                        cache.resolve(".install.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock()) {
            byte[] lockFile = resource("package-lock.json");
            Path installedLock = cache.resolve("node_modules/.locktable-package-lock.json");
            if (Files.exists(cli)
                    && Files.exists(installedLock)
                    && Arrays.equals(Files.readAllBytes(installedLock), lockFile)) {
                writeIfChanged(launcher, resource("server.js"));
                return launcher;
            }
            Files.write(cache.resolve("package.json"), resource("package.json"));
            Files.write(cache.resolve("package-lock.json"), lockFile);
            runNpmCi(cache);
            Files.copy(cache.resolve("package-lock.json"), installedLock, StandardCopyOption.REPLACE_EXISTING);
            writeIfChanged(launcher, resource("server.js"));
            return launcher;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not install dynalite into " + cache, e);
        }
    }

    private static void writeIfChanged(Path file, byte[] content) throws IOException {
        if (!Files.exists(file) || !Arrays.equals(Files.readAllBytes(file), content)) {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(temporary, content);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static void runNpmCi(Path cache) throws IOException {
        Path output = cache.resolve("npm-ci.log");
        Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                .directory(cache.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            if (!npm.waitFor(5, TimeUnit.MINUTES)) {
                npm.destroyForcibly();
                throw new IllegalStateException("npm ci in " + cache + " did not finish within 5 minutes: check that"
                        + " the npm registry is reachable. Output:\n" + tail(output));
            }
        } catch (InterruptedException e) {
            npm.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing dynalite", e);
        }
        if (npm.exitValue() != 0) {
            throw new IllegalStateException("npm ci failed with exit code " + npm.exitValue() + " in " + cache
                    + ": check that npm (Node.js 20+) works and the npm registry is reachable. Output:\n"
                    + tail(output));
        }
    }

    private static void checkNode() {
        String version;
        try {
            Process node = new ProcessBuilder("node", "--version")
                    .redirectErrorStream(true)
                    .start();
            version = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            node.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Node.js was not found: install Node.js 20 or newer and put node and npm on the PATH", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking Node.js", e);
        }
        int major = parseMajor(version);
        if (major < 20) {
            throw new IllegalStateException(
                    "Node.js " + version + " is too old for dynalite " + VERSION + ": install Node.js 20 or newer");
        }
    }

    static int parseMajor(String version) {
        String digits = version.startsWith("v") ? version.substring(1) : version;
        int dot = digits.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? digits : digits.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = DynaliteServer.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCES + name + " is missing from lock-test");
            }
            return in.readAllBytes();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port for dynalite", e);
        }
    }

    private static String tail(Path file) {
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
            throw new IllegalStateException("interrupted while waiting for dynalite", e);
        }
    }
}
