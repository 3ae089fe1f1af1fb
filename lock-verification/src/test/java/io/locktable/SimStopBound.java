package io.locktable;

/**
 * Issue 34's bound for one piece of work under a lease: from the moment a check first sees the lease ended while the
 * work is not yet told to stop, the work must be told within {@link Simulation#STOP_BOUND_NANOS}. A process whose
 * timer does not run (paused, waiting for a late answer, or its timer late) is not counted: the end comes from the
 * timer, and a process that stands still is what fencing is for.
 */
final class SimStopBound {

    /** When a check first saw the lease ended while the work was not yet told to stop; null until one does. */
    private Long endSeenAt;

    /**
     * How long, in the simulation's time, the work has run on since its lease's end was first seen, if that is longer
     * than the bound; 0 otherwise.
     *
     * @param lease the work's lease
     * @param counted whether the work's process runs its timer ({@link SimProcess#timerRuns()})
     * @param now the simulation's time
     */
    long overdueNanos(Lease lease, boolean counted, long now) {
        if (!counted) {
            endSeenAt = null;
            return 0;
        }
        if (lease.end().isEmpty() && lease.isHeld()) {
            return 0;
        }
        if (endSeenAt == null) {
            endSeenAt = now;
        }
        long since = now - endSeenAt;
        return since > Simulation.STOP_BOUND_NANOS ? since : 0;
    }
}
