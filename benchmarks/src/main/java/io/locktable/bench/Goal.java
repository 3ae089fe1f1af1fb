package io.locktable.bench;

/**
 * A goal of the benchmark issue and how this run did against it.
 *
 * @param scenario the scenario
 * @param goal what the issue asks
 * @param measured what this run measured
 * @param met whether the goal is met
 */
public record Goal(String scenario, String goal, String measured, boolean met) {

    /**
     * The verdict for the report.
     *
     * @return {@code met} or {@code **missed**}
     */
    public String verdict() {
        return met ? "met" : "**missed**";
    }
}
