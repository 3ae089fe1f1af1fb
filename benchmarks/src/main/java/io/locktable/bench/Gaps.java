package io.locktable.bench;

import java.util.List;

/** The last part of the report: each missed goal, why, and what would close it. */
final class Gaps {

    private Gaps() {}

    static Markdown build(List<Goal> goals, List<Section> sections) {
        Markdown md = new Markdown();
        md.heading(2, "Gaps");
        if (goals.stream().allMatch(Goal::met)) {
            md.paragraph("Every goal was met in this run.");
            return md;
        }
        for (Section section : sections) {
            for (String gap : section.gaps()) {
                md.paragraph(gap);
            }
        }
        return md;
    }
}
