package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LockDurations;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;

/**
 * Checks of the lease-scale duration properties, whose bare numbers are seconds: {@code locktable.lease-duration=30000}
 * would be a lease of 8h20m, so a bare number of 1000 or more fails startup asking which was meant, by the rule of
 * {@link LockDurations} that the annotations' attributes follow too. The bound {@code Duration} no longer tells whether
 * a unit was written, so the text is bound again.
 */
final class DurationProperties {

    private DurationProperties() {}

    static Duration leaseDuration(LockTableProperties properties, Environment environment) {
        requireUnit(environment, "locktable.lease-duration");
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

    static Duration shutdownTimeout(LockTableProperties properties, Environment environment) {
        return notNegative(
                environment,
                "locktable.leader.shutdown-timeout",
                properties.getLeader().getShutdownTimeout());
    }

    /** A lease-scale duration property that must be zero or more. */
    static Duration notNegative(Environment environment, String property, Duration value) {
        requireUnit(environment, property);
        if (value == null || value.isNegative()) {
            throw new LockTableConfigurationException(
                    property + " is " + value + "; it must be zero or more.",
                    "Set " + property + " to zero or a positive duration, or leave it unset for its default.");
        }
        return value;
    }

    /**
     * Refuses the property written as a number of at least {@value LockDurations#SURELY_MILLISECONDS} without a unit,
     * by {@link LockDurations}'s rule (the annotations' too), its text bound as Spring Boot binds it (relaxed names,
     * placeholders).
     *
     * @throws LockTableConfigurationException asking "did you mean ...ms or ...s?"
     */
    static void requireUnit(Environment environment, String property) {
        Binder.get(environment).bind(property, String.class).ifBound(text -> {
            try {
                LockDurations.parse(text);
            } catch (LockDurations.UnitMissingException e) {
                throw new LockTableConfigurationException(
                        property + "=" + e.getMessage(),
                        "Write the unit: " + property + "=" + e.meant().get(0) + " or " + property + "="
                                + e.meant().get(1) + ". A number without a unit is in seconds; write " + e.number()
                                + "s if that many seconds is meant.");
            } catch (IllegalArgumentException e) {
                // not a duration at all: binding the property says so, naming it
            }
        });
    }

    /** A duration as a property would say it: 1d, 30s, 500ms. */
    private static String simple(Duration duration) {
        for (ChronoUnit unit : List.of(ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES, ChronoUnit.SECONDS)) {
            if (duration.toMillis() % unit.getDuration().toMillis() == 0) {
                return DurationStyle.SIMPLE.print(duration, unit);
            }
        }
        return DurationStyle.SIMPLE.print(duration, ChronoUnit.MILLIS);
    }
}
