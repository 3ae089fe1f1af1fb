package io.locktable.verification;

import java.time.Duration;

/**
 * One run of the lock workload.
 *
 * @param variant how the set's write is protected
 * @param clients how many clients, each with its own lock table, client and proxy
 * @param duration how long clients start new operations
 * @param lease the lease of the lock
 * @param pause how long a paused client stands still (longer than the lease, so that it loses it)
 * @param pauseChance the chance that an operation pauses between its read and its write
 * @param networkFaults whether a nemesis also cuts connections and delays answers
 * @param seed the seed of every random choice of the clients and the nemesis
 */
public record WorkloadSettings(
        Variant variant,
        int clients,
        Duration duration,
        Duration lease,
        Duration pause,
        double pauseChance,
        boolean networkFaults,
        long seed) {

    /**
     * The bounded run of the normal build: 5 clients, 1 s leases, pauses of 2.5 s, network faults on.
     *
     * @param variant the variant
     * @param duration how long
     * @param seed the seed
     * @return the settings
     */
    public static WorkloadSettings bounded(Variant variant, Duration duration, long seed) {
        return new WorkloadSettings(
                variant, 5, duration, Duration.ofSeconds(1), Duration.ofMillis(2500), 0.15, true, seed);
    }
}
