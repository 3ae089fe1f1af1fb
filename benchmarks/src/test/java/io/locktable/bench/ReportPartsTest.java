package io.locktable.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The statistics and report helpers, without an engine: the benchmarks themselves run only from run.sh. */
class ReportPartsTest {

    @Test
    void summaryGivesMedianNearestRankPercentilesAndRange() {
        Summary summary = Summary.of(5, 1, 4, 2, 3);
        assertThat(summary.median()).isEqualTo(3);
        assertThat(summary.percentile(99)).isEqualTo(5);
        assertThat(summary.percentile(20)).isEqualTo(1);
        assertThat(summary.min()).isEqualTo(1);
        assertThat(summary.max()).isEqualTo(5);
        assertThat(Summary.of(1, 2, 3, 4).median()).isEqualTo(2.5);
        assertThat(Summary.of().median()).isNaN();
    }

    @Test
    void formatShowsMediansWithRanges() {
        assertThat(Format.num(2)).isEqualTo("2");
        assertThat(Format.num(0.6667)).isEqualTo("0.667");
        assertThat(Format.duration(Duration.ofMillis(3333))).isEqualTo("3.33 s");
        assertThat(Format.medianRange(Summary.of(1e6, 2e6, 4e6), " ms", 1e6)).isEqualTo("2 ms (1–4)");
    }

    @Test
    void markdownTablesEscapePipes() {
        String text = new Markdown()
                .table(List.of("a", "b"), List.of(List.of("x|y", "1")))
                .toString();
        assertThat(text).isEqualTo("| a | b |\n|---|---|\n| x\\|y | 1 |\n\n");
    }

    @Test
    void countsSplitReadsFromWrites() {
        Counts counts = new Counts(java.util.Map.of("GetItem", 2L, "UpdateItem", 3L));
        assertThat(counts.reads()).isEqualTo(2);
        assertThat(counts.writes()).isEqualTo(3);
        assertThat(counts.describePer(2)).isEqualTo("GetItem 1, UpdateItem 1.50");
    }

    @Test
    void latenessComparesEachRenewalWithThePreviousSendPlusThePeriod() {
        Lateness lateness = new Lateness(2, 100, 10);
        lateness.acquired(0, 1_000);
        lateness.renewed(0, 1_105);
        lateness.renewed(1, 2_000); // starts lease 1's schedule only
        lateness.renewed(1, 2_100);
        assertThat(lateness.all().sorted()).containsExactly(0, 5);
        assertThat(lateness.renewals()).isEqualTo(3);
    }

    @Test
    void scaleLeaseKeepsTheRenewalRateAndTheCrashBoundFollowsTheIssue() {
        assertThat(Plan.full().scaleLease(10_000)).isEqualTo(Duration.ofSeconds(60));
        assertThat(Plan.full().scaleLease(100)).isEqualTo(Duration.ofSeconds(6));
        assertThat(FailoverReport.crashBound(Duration.ofSeconds(3))).isEqualTo(Duration.ofMillis(4300));
    }
}
