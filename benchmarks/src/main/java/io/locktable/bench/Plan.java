package io.locktable.bench;

import java.time.Duration;
import java.util.List;

/**
 * How much of each scenario a run does: the full plan behind {@code docs/benchmarks.md}, or a quick one that only
 * shows everything works.
 *
 * @param name {@code full} or {@code quick}
 * @param cycleRounds alternating rounds of the request count
 * @param cyclesPerRound cycles per library and round
 * @param jmh the JMH settings
 * @param jmhThreads the thread counts JMH measures
 * @param expressionRounds rounds of the request-cost diagnostic
 * @param expressionRequests requests per kind and round of the diagnostic
 * @param heldLocks locks held per holding setup
 * @param waiters waiting contenders per setup
 * @param windows counting windows of holding and waiting
 * @param window the length of a window
 * @param failoverRounds rounds per kind of stop
 * @param scaleCounts lease counts of the scale scenario
 * @param renewalsPerSecond the renewal rate the scale scenario's lease is chosen for
 * @param retentionCycles acquire + release cycles of the released-lease measurement
 */
public record Plan(
        String name,
        int cycleRounds,
        int cyclesPerRound,
        JmhRunner.Settings jmh,
        int[] jmhThreads,
        int expressionRounds,
        int expressionRequests,
        int heldLocks,
        int waiters,
        int windows,
        Duration window,
        int failoverRounds,
        List<Integer> scaleCounts,
        int renewalsPerSecond,
        int retentionCycles) {

    /**
     * The plan of the report: about 10 minutes on a 2-core machine.
     *
     * @return the plan
     */
    public static Plan full() {
        return new Plan(
                "full",
                5,
                100,
                new JmhRunner.Settings(3, 2, 1, 3, 1),
                new int[] {1, 8},
                3,
                80,
                10,
                3,
                2,
                Duration.ofSeconds(60),
                3,
                List.of(1_000, 5_000, 10_000),
                500,
                5_000);
    }

    /**
     * A plan that runs every scenario briefly, to check the harness; its figures mean little.
     *
     * @return the plan
     */
    public static Plan quick() {
        return new Plan(
                "quick",
                1,
                20,
                new JmhRunner.Settings(1, 1, 1, 1, 1),
                new int[] {1, 8},
                1,
                20,
                2,
                1,
                1,
                Duration.ofSeconds(20),
                1,
                List.of(200),
                500,
                500);
    }

    /**
     * The lease of the scale scenario for a number of leases: their renewals, one every third of the lease, come
     * at {@link #renewalsPerSecond()} altogether, a rate dynalite keeps up with. Never below 6 s.
     *
     * @param leases how many leases
     * @return the lease
     */
    public Duration scaleLease(int leases) {
        long millis = Math.max(6_000L, 3_000L * leases / renewalsPerSecond);
        return Duration.ofMillis(millis);
    }
}
