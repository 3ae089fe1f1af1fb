package io.locktable;

import java.util.List;

/**
 * What one seed of the simulation did.
 *
 * @param seed the seed
 * @param steps the simulation's steps
 * @param virtualNanos how much simulated time passed
 * @param leasePeriods simulated time over the lease
 * @param grants acquisitions applied
 * @param faults requests the network did something to
 * @param leaderTerms terms whose work {@code runAsLeaderAsync} called
 * @param leaderWorkStoppedByItsLease of those, the work whose stage the end of its lease cancelled
 * @param violations the invariants broken, first one first
 * @param trace a hash of every request (process, operation, time, fault): equal for equal runs
 */
record SimResult(
        long seed,
        long steps,
        long virtualNanos,
        long leasePeriods,
        long grants,
        long faults,
        long leaderTerms,
        long leaderWorkStoppedByItsLease,
        List<String> violations,
        long trace) {

    String replay(long virtualSeconds) {
        return "./mvnw -B -ntp -pl lock-test,lock-core,lock-verification verify -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dtest=SimulationTest#replay -Dlocktable.sim.seed=" + seed
                + " -Dlocktable.sim.virtualSeconds=" + virtualSeconds;
    }
}
