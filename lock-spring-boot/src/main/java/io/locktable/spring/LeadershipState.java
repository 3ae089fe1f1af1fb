package io.locktable.spring;

/** Where a leadership of a {@link LeaderRunner} stands, as {@link LeadershipStatus#state()} reports it. */
public enum LeadershipState {
    /** This instance holds the lease: {@link LeaderOnly} calls of the name run. */
    LEADING,
    /** Another instance leads, or nobody does yet: this instance contends, and the calls are skipped. */
    FOLLOWING,
    /** The runner does not contend: it has not started, or it stopped (or is stopping) with the application. */
    STOPPED
}
