package io.locktable;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
    /** When the last warning was logged; null before the first. The thread that moves it logs. */
    private final AtomicReference<Long> lastLoggedNanos = new AtomicReference<>();

    private final AtomicInteger lateSinceLog = new AtomicInteger();
    private final AtomicLong worstSinceLogNanos = new AtomicLong();

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
        lateSinceLog.incrementAndGet();
        worstSinceLogNanos.accumulateAndGet(latenessNanos, Math::max);
        long now = clock.nanoTime();
        Long last = lastLoggedNanos.get();
        if ((last != null && now - last < LOG_EVERY_NANOS) || !lastLoggedNanos.compareAndSet(last, now)) {
            return; // logged within the minute, or another renewal logs now
        }
        // counted, not locked: a late renewal counted between these two reads shows in the next warning instead
        int count = lateSinceLog.getAndSet(0);
        long worst = worstSinceLogNanos.getAndSet(0);
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
