package io.locktable.bench;

import java.util.List;

/**
 * What one scenario adds to the report: its text and tables, its goals, and for the goals it missed, why and what
 * would close the gap.
 *
 * @param body the Markdown of the scenario
 * @param goals the goals it decides
 * @param gaps paragraphs on missed goals, Markdown
 */
public record Section(Markdown body, List<Goal> goals, List<String> gaps) {

    /** Keeps unmodifiable copies. */
    public Section {
        goals = List.copyOf(goals);
        gaps = List.copyOf(gaps);
    }
}
