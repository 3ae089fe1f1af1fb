package io.locktable.spring.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** ISO-8601 text of instants (UTC) and durations, to the millisecond, as the endpoint and health show them. */
final class Iso {

    private Iso() {}

    static String instant(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    static String duration(Duration duration) {
        return duration == null ? null : duration.truncatedTo(ChronoUnit.MILLIS).toString();
    }
}
