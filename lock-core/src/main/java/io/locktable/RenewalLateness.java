package io.locktable;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells when renewals start late: the engine answers slower than renewals fall due, or the table has more leases than
 * its workers renew (its {@link ElasticWorkers} then add threads for the late ones, with the same rule). Each late renewal goes to the listeners (and so to a meter); the log says so at most once a
 * minute, long before a lease is lost: a renewal is late past a tenth of its period, and a lease is lost only when
 * no renewal succeeded for three periods.
 */
final class RenewalLateness {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);
    private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

    private final String tableName;
    private final LockClock clock;
    private final LockTableListener listener;
    private long lastLoggedNanos; // guarded by this
    private boolean logged; // guarded by this
    private int lateSinceLog; // guarded by this
    private long worstSinceLogNanos; // guarded by this

    RenewalLateness(String tableName, LockClock clock, LockTableListener listener) {
        this.tableName = tableName;
        this.clock = clock;
        this.listener = listener;
    }

    void observe(Lease lease, long latenessNanos) {
        long period = Timing.renewalPeriod(lease.durationNanos());
        if (latenessNanos <= Timing.lateRenewal(lease.durationNanos())) {
            return;
        }
        listener.onRenewalLate(lease, Duration.ofNanos(latenessNanos));
        int count;
        long worst;
        synchronized (this) {
            lateSinceLog++;
            worstSinceLogNanos = Math.max(worstSinceLogNanos, latenessNanos);
            long now = clock.nanoTime();
            if (logged && now - lastLoggedNanos < LOG_EVERY_NANOS) {
                return;
            }
            logged = true;
            lastLoggedNanos = now;
            count = lateSinceLog;
            worst = worstSinceLogNanos;
            lateSinceLog = 0;
            worstSinceLogNanos = 0;
        }
        log.warn(
                "Lock table '{}': {} renewals started late, the latest by {} ms (lock '{}', renewed every {} ms): the"
                        + " engine answers slower than renewals fall due; leases are lost if this grows to a whole"
                        + " lease. The table adds worker threads while this lasts, up to {}; beyond that, give it"
                        + " longer leases",
                tableName,
                count,
                worst / 1_000_000,
                lease.name(),
                period / 1_000_000,
                Timing.MAX_WORKERS);
    }
}
