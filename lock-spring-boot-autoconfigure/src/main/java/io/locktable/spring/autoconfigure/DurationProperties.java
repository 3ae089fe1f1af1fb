package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;

/**
 * The duration properties, checked: {@code locktable.lease-duration} against lock-core's range of a lease, and the
 * timeouts and intervals that must be positive or not negative. A value out of its range fails startup naming the
 * property.
 *
 * <p>The lease-scale ones take a number without a unit as seconds ({@code @DurationUnit(SECONDS)}), so {@code
 * locktable.lease-duration=30000}, surely meant as milliseconds, would be a lease of 8h20m: a crashed leader's work
 * would stay undone for hours. A number without a unit of at least {@value #SURELY_MILLISECONDS} fails startup
 * instead, asking which was meant. The bound {@code Duration} no longer tells whether a unit was written, so the
 * property's text is read from the environment. {@code locktable.time-to-live.retention} is not lease-scale (hours
 * to days, 86400 is a day) and keeps taking any number as seconds.
 */
final class DurationProperties {

    /** A number without a unit from which a lease-scale property is surely meant in milliseconds. */
    static final int SURELY_MILLISECONDS = 1000;

    private static final Pattern BARE_NUMBER = Pattern.compile("\\+?\\d+");

    private DurationProperties() {}

    /** The lease of leaders that set none, checked. */
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

    /** The bound of the leader runner's stop, checked. */
    static Duration shutdownTimeout(LockTableProperties properties, Environment environment) {
        return notNegative(
                environment,
                "locktable.leader.shutdown-timeout",
                properties.getLeader().getShutdownTimeout());
    }

    /** A lease-scale duration property that must be more than zero, checked. */
    static Duration positive(Environment environment, String property, Duration value) {
        requireUnit(environment, property);
        if (value == null || value.isNegative() || value.isZero()) {
            throw new LockTableConfigurationException(
                    property + " is " + value + "; it must be more than zero.",
                    "Set " + property + " to a positive duration, such as 2s, or leave it unset for its default.");
        }
        return value;
    }

    /** A lease-scale duration property that must be zero or more, checked. */
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
     * Refuses a lease-scale property written as a number of at least {@value #SURELY_MILLISECONDS} without a unit,
     * which would be taken as that many seconds. Its text is bound from the environment as Spring Boot binds the
     * property (relaxed names, environment variables, placeholders resolved).
     *
     * @throws LockTableConfigurationException naming the property and asking "did you mean ...ms or ...s?"
     */
    static void requireUnit(Environment environment, String property) {
        Binder.get(environment).bind(property, String.class).ifBound(text -> {
            String number = text.trim();
            if (!BARE_NUMBER.matcher(number).matches()) {
                return; // a unit (30s, 500ms) or ISO-8601 (PT30S): what was meant is written
            }
            BigInteger value = new BigInteger(number);
            if (value.compareTo(BigInteger.valueOf(SURELY_MILLISECONDS)) < 0) {
                return;
            }
            String milliseconds = value + "ms";
            BigInteger[] seconds = value.divideAndRemainder(BigInteger.valueOf(1000));
            String meant = seconds[1].signum() == 0
                    ? milliseconds + " or " + seconds[0] + "s"
                    : milliseconds + " or " + DurationStyle.ISO8601.print(Duration.ofMillis(value.longValue()));
            throw new LockTableConfigurationException(
                    property + "=" + number + " has no unit, so it is read as " + value + " seconds ("
                            + asSeconds(value) + "): did you mean " + meant + "?",
                    "Write the unit: " + property + "=" + meant.replace(" or ", " or " + property + "=")
                            + ". A number without a unit is in seconds; write " + value + "s if that many seconds"
                            + " is meant.");
        });
    }

    /** A number of seconds as a readable duration, such as 8h20m; "more than a day" past what a lease may be. */
    private static String asSeconds(BigInteger seconds) {
        if (seconds.bitLength() > 40) {
            return "far more than a day";
        }
        Duration duration = Duration.ofSeconds(seconds.longValue());
        StringBuilder text = new StringBuilder();
        if (duration.toDays() > 0) {
            text.append(duration.toDays()).append('d');
        }
        if (duration.toHoursPart() > 0) {
            text.append(duration.toHoursPart()).append('h');
        }
        if (duration.toMinutesPart() > 0) {
            text.append(duration.toMinutesPart()).append('m');
        }
        if (duration.toSecondsPart() > 0) {
            text.append(duration.toSecondsPart()).append('s');
        }
        return text.toString();
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
