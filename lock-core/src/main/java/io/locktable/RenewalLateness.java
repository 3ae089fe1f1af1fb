package io.locktable;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports renewals that start late (past {@link Timing#lateRenewal}) to the listeners, and logs them at most once a
 * minute, long before a lease is lost (only after three periods without a renewal).
 */
final class RenewalLateness {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

    private final String tableName;
    private final LockClock clock;
    private final LockTableListener listener;
    private final ReentrantLock lock = new ReentrantLock();
    private long lastLoggedNanos; // guarded by lock
    private boolean logged; // guarded by lock
    private int lateSinceLog; // guarded by lock
    private long worstSinceLogNanos; // guarded by lock

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
        lock.lock();
        try {
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
        } finally {
            lock.unlock();
        }
        log.warn(
                "Lock table '{}': {} renewals started late, the latest by {} ms (lock '{}', renewed every {} ms):"
                        + " the engine answers slower than renewals fall due; leases are lost if this grows to a"
                        + " whole lease. The table adds worker threads while this lasts, up to {}; beyond that,"
                        + " give it longer leases",
                tableName,
                count,
                worst / 1_000_000,
                lease.name(),
                period / 1_000_000,
                Timing.MAX_WORKERS);
    }
}
