package io.locktable.test;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The process's own standard error, which a build tool that captures each test's output (Surefire's {@code
 * redirectTestOutputToFile}) still shows on its console: for the few lines a test run should always show.
 */
final class Console {

    private static final PrintStream ERR =
            new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

    private Console() {}

    static void println(String line) {
        ERR.println(line);
    }

    static PrintStream stream() {
        return ERR;
    }
}
