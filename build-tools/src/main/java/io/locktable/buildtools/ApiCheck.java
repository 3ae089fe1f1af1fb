package io.locktable.buildtools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The API check of the build: for each module named, the dump of its {@code target/classes} ({@link ApiDump}) against
 * the committed {@code <module>/api/<module>.api}. A difference fails with the unified diff of each module and the
 * command that rewrites the dumps; with update {@code true} the dumps are written instead.
 *
 * <p>Arguments: the repository's root folder, {@code true} or {@code false} (update), then the modules.
 */
public final class ApiCheck {

    /** The command that rewrites the dumps, in the failure's message, the README and the CHANGELOG. */
    public static final String UPDATE_COMMAND = "./mvnw -B verify -DskipTests -Dapi.update=true";

    private ApiCheck() {}

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        boolean update = Boolean.parseBoolean(args[1]);
        List<String> modules = Arrays.asList(args).subList(2, args.length);
        List<String> changed = new ArrayList<>();
        StringBuilder diffs = new StringBuilder();
        for (String module : modules) {
            Path classes = root.resolve(module).resolve("target/classes");
            if (!Files.isDirectory(classes)) {
                throw new IllegalStateException("API check: " + classes + " is missing; build " + module + " first");
            }
            Path dumpFile = root.resolve(module).resolve("api").resolve(module + ".api");
            String dump = header(module) + ApiDump.of(classes);
            String committed = Files.isRegularFile(dumpFile)
                    ? Files.readString(dumpFile, StandardCharsets.UTF_8).replace("\r\n", "\n")
                    : "";
            if (dump.equals(committed)) {
                continue;
            }
            String relative = module + "/api/" + module + ".api";
            if (update) {
                Files.createDirectories(dumpFile.getParent());
                Files.writeString(dumpFile, dump, StandardCharsets.UTF_8);
                System.out.println("API check: wrote " + relative);
                continue;
            }
            changed.add(module);
            diffs.append(
                    UnifiedDiff.of(relative + " (committed)", lines(committed), relative + " (the code)", lines(dump)));
        }
        if (changed.isEmpty()) {
            if (!update) {
                System.out.println("API check: the public API of " + String.join(", ", modules)
                        + " is the one in their api/*.api dumps");
            }
            return;
        }
        System.out.println();
        System.out.println("The public API of " + String.join(", ", changed)
                + " differs from its committed dump (- the dump, + the code):");
        System.out.println();
        System.out.print(diffs);
        System.out.println();
        System.out.println("If the change is meant, rewrite the dumps and commit them with the change (and a line in"
                + " CHANGELOG.md):");
        System.out.println("    " + UPDATE_COMMAND);
        System.out.println();
        throw new IllegalStateException("API check failed: the public API of " + String.join(", ", changed)
                + " differs from its api/*.api dump (the diff is above); if it is meant, run: " + UPDATE_COMMAND);
    }

    private static String header(String module) {
        return "# The public and protected API of " + module + ", checked by ./mvnw verify (build-tools, README \"API"
                + " changes\").\n# A change to it fails the build until this file is rewritten: " + UPDATE_COMMAND
                + "\n\n";
    }

    private static List<String> lines(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        return Arrays.asList(text.split("\n", -1))
                .subList(0, text.endsWith("\n") ? text.split("\n", -1).length - 1 : text.split("\n", -1).length);
    }
}
