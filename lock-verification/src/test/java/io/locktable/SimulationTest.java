package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The deterministic simulation's bounded run: as many seeds as fit in the time budget, each a few hundred leases of
 * simulated time. A failing seed prints the one command that replays it. Longer: {@code
 * -Dlocktable.sim.budgetSeconds=300}.
 */
class SimulationTest {

    private static final long VIRTUAL_SECONDS = Long.getLong("locktable.sim.virtualSeconds", 300);
    private static final long BUDGET_SECONDS = Long.getLong("locktable.sim.budgetSeconds", 40);
    private static final long FIRST_SEED = Long.getLong("locktable.sim.firstSeed", System.currentTimeMillis());

    @Test
    void everySeedKeepsEveryInvariant() {
        long deadline = System.nanoTime() + Duration.ofSeconds(BUDGET_SECONDS).toNanos();
        long seeds = 0;
        long steps = 0;
        long periods = 0;
        long grants = 0;
        long faults = 0;
        long terms = 0;
        long stoppedByLease = 0;
        List<String> failures = new ArrayList<>();
        long started = System.nanoTime();
        for (long seed = FIRST_SEED; System.nanoTime() - deadline < 0 && failures.isEmpty(); seed++) {
            SimResult result = SimRunner.run(seed, Duration.ofSeconds(VIRTUAL_SECONDS));
            seeds++;
            steps += result.steps();
            periods += result.leasePeriods();
            grants += result.grants();
            faults += result.faults();
            terms += result.leaderTerms();
            stoppedByLease += result.leaderWorkStoppedByItsLease();
            if (!result.violations().isEmpty()) {
                failures.add("seed " + seed + ": " + result.violations().get(0) + "\n  replay: "
                        + result.replay(VIRTUAL_SECONDS));
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("[simulation] seeds " + FIRST_SEED + ".." + (FIRST_SEED + seeds - 1) + " (" + seeds
                + "), steps=" + steps + " leasePeriods=" + periods + " grants=" + grants + " faults=" + faults
                + " leaderTerms=" + terms + " (work cancelled by its lease's end: " + stoppedByLease + ") violations="
                + failures.size() + " in " + millis + " ms; jitter replayed: "
                + SimRunner.jitterReplayed());
        failures.forEach(System.out::println);
        assertThat(failures)
                .as("violations; each line has the command that replays it")
                .isEmpty();
        assertThat(grants).as("grants").isPositive();
        assertThat(faults).as("faults").isPositive();
        assertThat(terms).as("terms of runAsLeaderAsync").isPositive();
    }

    @Test
    void aSeedReplaysExactly() {
        Assumptions.assumeTrue(
                SimRunner.jitterReplayed(),
                "this JVM does not let the simulation seed ThreadLocalRandom (Thread's fields threadLocalRandomSeed and"
                        + " tid): lock-core's jitter is not replayed");
        long seed = FIRST_SEED ^ 0x5eed;
        SimResult first = SimRunner.run(seed, Duration.ofSeconds(60));
        SimResult second = SimRunner.run(seed, Duration.ofSeconds(60));
        assertThat(second.trace()).as("trace of seed %d", seed).isEqualTo(first.trace());
        assertThat(second.steps()).isEqualTo(first.steps());
        assertThat(second.grants()).isEqualTo(first.grants());
        assertThat(second.violations()).isEqualTo(first.violations());
    }

    @Test
    void replay() {
        String seed = System.getProperty("locktable.sim.seed");
        Assumptions.assumeTrue(seed != null, "replays a seed given by -Dlocktable.sim.seed");
        SimResult result = SimRunner.run(Long.parseLong(seed), Duration.ofSeconds(VIRTUAL_SECONDS));
        System.out.println("[simulation] seed " + seed + ": steps=" + result.steps() + " grants=" + result.grants()
                + " faults=" + result.faults() + " trace=" + result.trace());
        result.violations().forEach(System.out::println);
        assertThat(result.violations()).isEmpty();
    }
}
