package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.convert.DurationStyle;

/**
 * The duration properties, checked: {@code locktable.lease-duration} against lock-core's range of a lease, and the
 * timeouts and intervals that must be positive or not negative. A value out of its range fails startup naming the
 * property.
 */
final class DurationProperties {

    private DurationProperties() {}

    /** The lease of leaders that set none, checked. */
    static Duration leaseDuration(LockTableProperties properties) {
        Duration lease = properties.getLeaseDuration();
        if (!LockTable.isLeaseDuration(lease)) {
            String range = simple(LockTable.MIN_LEASE_DURATION) + " to " + simple(LockTable.MAX_LEASE_DURATION);
            throw new LockTableConfigurationException(
                    "locktable.lease-duration is " + lease + ", outside the range a lease may have, " + range + ".",
                    "Set locktable.lease-duration from " + range + ", such as 30s: about how long a crashed leader's"
                            + " work stays undone.");
        }
        return lease;
    }

    /** The bound of the leader runner's stop, checked. */
    static Duration shutdownTimeout(LockTableProperties properties) {
        return notNegative(
                "locktable.leader.shutdown-timeout", properties.getLeader().getShutdownTimeout());
    }

    /** A duration property that must be more than zero, checked. */
    static Duration positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new LockTableConfigurationException(
                    property + " is " + value + "; it must be more than zero.",
                    "Set " + property + " to a positive duration, such as 2s, or leave it unset for its default.");
        }
        return value;
    }

    /** A duration property that must be zero or more, checked. */
    static Duration notNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw new LockTableConfigurationException(
                    property + " is " + value + "; it must be zero or more.",
                    "Set " + property + " to zero or a positive duration, or leave it unset for its default.");
        }
        return value;
    }

    /** A duration as a property would say it: 30s, 1d, 500ms. */
    private static String simple(Duration duration) {
        for (ChronoUnit unit : new ChronoUnit[] {ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES}) {
            if (duration.toMillis() % unit.getDuration().toMillis() == 0) {
                return DurationStyle.SIMPLE.print(duration, unit);
            }
        }
        return duration.toMillis() % 1000 == 0
                ? DurationStyle.SIMPLE.print(duration, ChronoUnit.SECONDS)
                : DurationStyle.SIMPLE.print(duration, ChronoUnit.MILLIS);
    }
}
