package io.locktable.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A local moto server (the open-source AWS mock on Python) for tests: started on a free loopback port, in memory,
 * and stopped when the JVM exits. Unlike dynalite it has {@code TransactWriteItems} with cancellation reasons,
 * returns the item on a condition failure, and has {@code UpdateTimeToLive}.
 *
 * <p>moto's backends are not thread-safe, so it runs behind a small launcher of lock-test's ({@code
 * io/locktable/test/moto/server.py}) that processes one request at a time while it reads and answers connections on
 * threads of their own. The launcher and the server's log are kept in {@code ~/.cache/locktable/moto}; the launcher
 * exits when this JVM does, killed or not.
 *
 * <p>It needs Python 3 with moto 5 and its server extras ({@code pip install 'moto[server]'}); the Python is {@code
 * python3} on the {@code PATH}, or the system property {@code locktable.test.python}, or the environment variable
 * {@code LOCKTABLE_TEST_PYTHON}. Where it lacks moto, starting fails with what is missing and how to install it.
 */
public final class MotoServer extends LocalServer {

    private static final String LAUNCHER = "/io/locktable/test/moto/server.py";
    private static @Nullable MotoServer shared;

    private MotoServer(String python, Path launcher, Path cache, int port) {
        super(
                "moto",
                chosen -> List.of(python, launcher.toString(), Integer.toString(chosen), "127.0.0.1"),
                port,
                chosen -> cache.resolve("moto-" + chosen + ".log"),
                "the moto engine needs Python 3 with moto and its server extras: install them (pip install"
                        + " 'moto[server]' for " + python + "), or name a Python that has them with"
                        + " -Dlocktable.test.python=... or LOCKTABLE_TEST_PYTHON");
    }

    /**
     * The moto server of this JVM, started on first use, stopped at JVM exit.
     *
     * @return the shared server
     * @throws IllegalStateException if Python or moto is missing, or the server did not answer; the message says
     *     what is missing and how to install it
     */
    public static synchronized MotoServer shared() {
        if (shared == null || !shared.isAlive()) {
            shared = start(0);
            shared.stopAtExit();
        }
        return shared;
    }

    /**
     * Whether the configured Python can import moto's server, without starting one: for a test that needs moto only
     * where no engine was selected, and is skipped, not failed, on a machine without it.
     *
     * @return true if {@code import moto.server} succeeds within 30 seconds
     */
    public static boolean isInstalled() {
        return isInstalled(python());
    }

    static boolean isInstalled(String python) {
        try {
            Process check = new ProcessBuilder(python, "-c", "import moto.server")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!check.waitFor(30, TimeUnit.SECONDS)) {
                check.destroyForcibly();
                return false;
            }
            return check.exitValue() == 0;
        } catch (IOException e) {
            return false; // no such Python
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Starts a new server with the configured Python; the caller stops it with {@link #close()}.
     *
     * @param port the loopback port, or 0 for a free one
     * @return the running server
     * @throws IllegalStateException as {@link #shared()}
     */
    public static MotoServer start(int port) {
        return start(python(), port);
    }

    static MotoServer start(String python, int port) {
        Path cache = LocalServer.cacheDirectory("locktable.moto.cache", "LOCKTABLE_MOTO_CACHE", "moto");
        Path launcher = cache.resolve("server.py");
        try {
            writeIfChanged(launcher, resource(LAUNCHER));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write moto's launcher into " + cache, e);
        }
        return new MotoServer(python, launcher, cache, port);
    }

    /** The Python to run moto with: {@code locktable.test.python}, {@code LOCKTABLE_TEST_PYTHON} or python3. */
    static String python() {
        String configured = DynamoDbEngines.setting("locktable.test.python", "LOCKTABLE_TEST_PYTHON");
        return configured == null || configured.isBlank() ? "python3" : configured.trim();
    }
}
