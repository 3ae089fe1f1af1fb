package io.locktable.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

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
public final class DynaliteServer extends LocalServer {

    static final String VERSION = "4.0.0";
    private static final String RESOURCES = "/io/locktable/test/dynalite/";
    private static @Nullable DynaliteServer shared;

    private DynaliteServer(Path server, Path cache, int port) {
        super(
                "dynalite",
                chosen -> List.of("node", server.toString(), Integer.toString(chosen), "127.0.0.1"),
                port,
                chosen -> cache.resolve("dynalite-" + chosen + ".log"),
                "dynalite needs Node.js 20 or newer on the PATH");
    }

    /**
     * The dynalite of this JVM, installed and started on first use, stopped at JVM exit.
     *
     * @return the shared server
     * @throws IllegalStateException if Node.js is missing or too old, {@code npm ci} failed, or the server did not
     *     answer; the message says what to install or check
     */
    public static synchronized DynaliteServer shared() {
        if (shared == null || !shared.isAlive()) {
            shared = start(0);
            shared.stopAtExit();
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
        return new DynaliteServer(install(cache), cache, port);
    }

    static Path cacheDirectory() {
        return cacheDirectory("locktable.dynalite.cache", "LOCKTABLE_DYNALITE_CACHE", "dynalite-" + VERSION);
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
            byte[] lockFile = resource(RESOURCES + "package-lock.json");
            Path installedLock = cache.resolve("node_modules/.locktable-package-lock.json");
            if (Files.exists(cli)
                    && Files.exists(installedLock)
                    && Arrays.equals(Files.readAllBytes(installedLock), lockFile)) {
                writeIfChanged(launcher, resource(RESOURCES + "server.js"));
                return launcher;
            }
            Files.write(cache.resolve("package.json"), resource(RESOURCES + "package.json"));
            Files.write(cache.resolve("package-lock.json"), lockFile);
            runNpmCi(cache);
            Files.copy(cache.resolve("package-lock.json"), installedLock, StandardCopyOption.REPLACE_EXISTING);
            writeIfChanged(launcher, resource(RESOURCES + "server.js"));
            return launcher;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not install dynalite into " + cache, e);
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
}
