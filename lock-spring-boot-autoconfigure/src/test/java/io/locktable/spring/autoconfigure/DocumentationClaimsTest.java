package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the READMEs say on a user's first day: that nothing is on a registry yet and the artifacts are installed from
 * source first, in their first lines; and takeover and election times as measured, with their ranges, not as
 * "one lease", "a few milliseconds" or "about a minute".
 */
class DocumentationClaimsTest {

    private static final Path ROOT = Path.of("..");
    private static final Path README = ROOT.resolve("README.md");
    private static final Path STARTER = ROOT.resolve("lock-spring-boot-starter/README.md");
    private static final Path TEST_SUPPORT = ROOT.resolve("lock-spring-boot-test/README.md");
    private static final String INSTALL = "`./mvnw -B install -DskipTests`";

    @Test
    void theMainReadmeSaysInItsFirstLinesThatTheArtifactsAreInstalledFromSource() throws IOException {
        List<String> lines = Files.readAllLines(README);
        String first = String.join("\n", lines.subList(0, 16));

        assertThat(first).contains("Nothing is on a\nregistry").contains(INSTALL);
        int commands = lines.indexOf("```bash");
        assertThat(lines.subList(0, commands))
                .as("no command before the demo's and the tests'")
                .noneMatch(line -> line.contains("./mvnw") || line.contains("./demo.sh"));
        assertThat(lines.subList(commands, commands + 4))
                .containsExactly(
                        "```bash",
                        "./demo.sh          # the demo: four instances; leaders killed (SIGKILL), stopped (SIGTERM) and"
                                + " frozen (SIGSTOP)",
                        "./mvnw -B verify   # the tests: builds everything and runs the suite against a local dynalite",
                        "```");
    }

    @Test
    void theOtherReadmesSayItInTheirFirstLines() throws IOException {
        List<Path> readmes = new ArrayList<>(List.of(STARTER, TEST_SUPPORT));
        try (Stream<Path> samples = Files.list(ROOT.resolve("samples"))) {
            samples.filter(Files::isDirectory)
                    .map(sample -> sample.resolve("README.md"))
                    .forEach(readmes::add);
        }
        assertThat(readmes).as("each sample has a README").allMatch(Files::isRegularFile);
        for (Path readme : readmes) {
            List<String> lines = Files.readAllLines(readme);
            assertThat(String.join(" ", lines.subList(0, Math.min(6, lines.size()))))
                    .as(readme.toString())
                    .contains("Not on a registry yet")
                    .contains(INSTALL);
        }
    }

    @Test
    void takeoverElectionAndDemoTimesAreTheMeasuredRanges() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(README, STARTER, TEST_SUPPORT));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(path -> path.toString().endsWith(".md")).forEach(docs::add);
        }
        for (Path doc : docs) {
            String text = Files.readString(doc).replaceAll("\\s+", " ");
            assertThat(text)
                    .as(doc.toString())
                    .doesNotContain("a few milliseconds")
                    .doesNotContain("about a minute")
                    .doesNotContain("(one lease")
                    .doesNotContain("undone for about one lease");
        }
        String readme = Files.readString(README).replaceAll("\\s+", " ");
        assertThat(readme)
                .contains(
                        "The demo takes one to two minutes (57 s measured with the modules built already, 113–133 s building them first)")
                .contains("the takeover time after a crash (4.2–7.7 s measured with the demo's 6 s lease");
        String starter = Files.readString(STARTER).replaceAll("\\s+", " ");
        assertThat(starter)
                .contains("(146–744 ms measured after startup when nobody leads)")
                .contains("4.2–7.7 s measured at a 6 s lease (the lease minus up to a third")
                .contains("4.2–7.7 s after the crash, measured at a 6 s lease");
    }
}
