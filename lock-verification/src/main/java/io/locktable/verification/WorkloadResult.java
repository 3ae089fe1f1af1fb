package io.locktable.verification;

import java.time.Duration;

/**
 * What a workload run did and what the checker found.
 *
 * @param settings the run
 * @param engine the engine's name
 * @param verdict the checker's findings
 * @param pauses how many client pauses happened
 * @param cuts how many times the nemesis cut a client's connections
 * @param lateSpells how many times the nemesis made a client's answers late
 * @param took how long the run took
 */
public record WorkloadResult(
        WorkloadSettings settings,
        String engine,
        Verdict verdict,
        int pauses,
        int cuts,
        int lateSpells,
        Duration took) {

    @Override
    public String toString() {
        return "[workload] " + settings.variant() + " on " + engine + " seed=" + settings.seed() + " took="
                + took.toSeconds() + "s pauses=" + pauses + " cuts=" + cuts + " lateSpells=" + lateSpells + " "
                + verdict;
    }
}
