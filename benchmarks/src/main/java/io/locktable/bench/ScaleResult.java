package io.locktable.bench;

import java.time.Duration;
import java.util.Map;

/**
 * What one library did while holding many leases.
 *
 * @param library the library
 * @param leases how many leases it held
 * @param lease the lease duration used
 * @param period the renewal or heartbeat period
 * @param acquireSeconds how long acquiring them all took
 * @param threadsAdded JVM threads added by the client and the library while they held them (compared with before
 *     the client was built)
 * @param threadKinds those threads by kind
 * @param renewalThreads the library's own renewal or heartbeat threads
 * @param bytesPerLease heap per held lease, after full collections
 * @param lateness lateness of every renewal, nanoseconds
 * @param steady lateness of renewals scheduled after every lease was acquired, nanoseconds
 * @param lost leases lost or expired while held
 * @param renewals renewals or heartbeats sent while held
 */
public record ScaleResult(
        String library,
        int leases,
        Duration lease,
        Duration period,
        double acquireSeconds,
        int threadsAdded,
        Map<String, Integer> threadKinds,
        int renewalThreads,
        double bytesPerLease,
        Summary lateness,
        Summary steady,
        int lost,
        int renewals) {}
