package io.locktable.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's arithmetic and its markers, without an engine (built and run only with -Pbenchmarks). */
class ReportTest {

    @Test
    void goalsAreReadFromTheirFileAndCheckedAgainstTheMetrics() throws Exception {
        List<Report.Goal> goals = Report.goals(Files.readString(Path.of("goals.properties")));
        assertThat(goals)
                .extracting(Report.Goal::id)
                .contains("ratio-p50-1", "scale-heap", "slow-lost", "waiters-async-threads-own");

        Report report = new Report();
        report.metric("cycle.ratio.p50.rtt5.t1", 0.65, "0.65");
        report.metric("cycle.ratio.p99.rtt5.t1", 0.71, "0.71");
        List<Report.Goal> missed = report.verdicts(goals.subList(0, 3));

        assertThat(missed).extracting(Report.Goal::id).containsExactly("ratio-p99-1", "ratio-p50-8");
        assertThat(report.tables.get("goals"))
                .contains("| 0.65 | met |", "| 0.71 | **missed** |", "| — | not measured |");
    }

    @Test
    void aLineThatIsNoGoalIsRefused() {
        assertThatThrownBy(() -> Report.goals("x = metric about 3 | text")).hasMessageContaining("not a goal");
    }

    @Test
    void tablesGoBetweenTheirMarkersAndTheProseStays(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("doc.md");
        Files.writeString(
                doc,
                "# Title\n\nProse.\n\n<!-- bench:table a -->\nold\n<!-- /bench:table -->\n\nMore prose.\n"
                        + "<!-- bench:table b -->\n<!-- /bench:table -->\n");
        Report report = new Report();
        report.table("a", List.of("x", "y|z"), List.of(List.of("1", "2")));
        report.table("c", List.of("x"), List.of());

        assertThat(report.fill(doc, doc)).containsExactly("c");
        assertThat(Files.readString(doc))
                .isEqualTo("# Title\n\nProse.\n\n<!-- bench:table a -->\n| x | y\\|z |\n|---|---|\n| 1 | 2 |\n"
                        + "<!-- /bench:table -->\n\nMore prose.\n<!-- bench:table b -->\n_Not measured in this run._\n"
                        + "<!-- /bench:table -->\n");
    }

    @Test
    void aPartialRunLeavesTheOtherTablesAndKeepsTheRowsOfGoalsItDidNotMeasure(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("doc.md");
        Files.writeString(
                doc,
                "<!-- bench:table a -->\nold a\n<!-- /bench:table -->\n<!-- bench:table b -->\nold b\n"
                        + "<!-- /bench:table -->\n<!-- bench:table goals -->\n| goal | bound | this run | verdict |\n"
                        + "|---|---|---|---|\n| one | < 1 | 0.5 | met |\n| two | < 1 | 2 | **missed** |\n"
                        + "<!-- /bench:table -->\n");
        List<Report.Goal> goals = Report.goals("g1 = m.one < 1 | one\ng2 = m.two < 1 | two\n");
        Report report = new Report();
        report.metric("m.two", 0.5, "0.5");
        report.table("a", List.of("x"), List.of(List.of("new a")));
        report.verdicts(goals);

        int met = report.keepUnmeasuredGoals(goals, Report.tableIn(Files.readString(doc), "goals"));
        report.fill(doc, doc, true);

        assertThat(met).isEqualTo(2);
        assertThat(Files.readString(doc))
                .contains("| new a |", "old b", "| one | < 1 | 0.5 | met |", "| two | < 1 | 0.5 | met |")
                .doesNotContain("old a", "Not measured");
    }

    @Test
    void statsGiveNearestRankPercentilesAndShortNumbers() {
        Stats stats = Stats.of(5, 1, 4, 2, 3);
        assertThat(stats.median()).isEqualTo(3);
        assertThat(stats.pct(99)).isEqualTo(5);
        assertThat(stats.pct(20)).isEqualTo(1);
        assertThat(stats.range(1)).isEqualTo("3 (1–5)");
        assertThat(Stats.num(0.6667)).isEqualTo("0.667");
        assertThat(Stats.num(12_345)).isEqualTo("12,345");
    }

    @Test
    void latenessCountsEachRenewalFromThePreviousSendAndTheOverdueAtTheEnd() {
        Scale.Lateness lateness = new Scale.Lateness(2, 100);
        lateness.sent(0, 1_000); // acquire
        lateness.sent(0, 1_105); // 5 late
        lateness.sent(1, 2_000); // acquire, never renewed
        Stats stats = lateness.stop(2_150);

        assertThat(stats.min()).isEqualTo(5);
        assertThat(stats.max()).isEqualTo(945); // lease 0: 2150 - 1105 - 100; lease 1: 50, both overdue
        assertThat(stats.count()).isEqualTo(3);
    }
}
