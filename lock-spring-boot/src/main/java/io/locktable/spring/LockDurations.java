package io.locktable.spring;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.convert.DurationStyle;

/**
 * The one rule by which LockTable's Spring modules read a duration written as text, in a lease-scale {@code
 * locktable.*} property (such as {@code locktable.lease-duration}) and in the attributes of {@link LeaderOnly} and
 * {@link LockedRun} ({@code leaseDuration}, {@code minHold}): Spring Boot's styles ({@code 30s}, {@code 500ms}, {@code
 * 2m}, {@code PT30S}), and a number without a unit is in <em>seconds</em>. A number without a unit of {@value
 * #SURELY_MILLISECONDS} or more is refused, asking "did you mean 30000ms or 30s?": {@code 30000} seconds would be a
 * lease of 8h20m, surely meant as milliseconds. Empty text (an unset attribute, or a placeholder whose default is
 * empty, {@code ${app.lease:}}) means the default.
 *
 * <p>Public so that an application that reads its own lock durations from text can read them as the starter does.
 */
public final class LockDurations {

    /** The smallest number without a unit that is refused: 1000 seconds would rarely be meant as a lease. */
    public static final int SURELY_MILLISECONDS = 1000;

    private LockDurations() {}

    /**
     * Reads a duration.
     *
     * @param text the text, such as {@code "30s"} or {@code "4"} (4 seconds); surrounding blanks are ignored
     * @return the duration, or empty when the text is empty or blank (the default applies)
     * @throws UnitMissingException if the text is a number of {@value #SURELY_MILLISECONDS} or more without a unit
     * @throws IllegalArgumentException if the text is not a duration; the message quotes it
     */
    public static Optional<Duration> parse(String text) {
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            return Optional.empty();
        }
        requireUnit(trimmed);
        try {
            return Optional.of(DurationStyle.detectAndParse(trimmed, ChronoUnit.SECONDS));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + trimmed + "' is not a duration", e);
        }
    }

    private static void requireUnit(String number) {
        // up to 18 digits: a longer number is no duration at all, which the parser says
        if (number.matches("\\+?\\d{1,18}") && Long.parseLong(number) >= SURELY_MILLISECONDS) {
            throw new UnitMissingException(Long.parseLong(number));
        }
    }

    /**
     * A number of {@value #SURELY_MILLISECONDS} or more written without a unit. Its message says how it is read and
     * asks which was meant: "30000 has no unit, so it is read as 30000 seconds (8h20m): did you mean 30000ms or 30s?".
     */
    public static final class UnitMissingException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        private final long number;
        private final List<String> meant;

        UnitMissingException(long number) {
            this(number, meant(number));
        }

        private UnitMissingException(long number, List<String> meant) {
            super(number + " has no unit, so it is read as " + number + " seconds ("
                    + Duration.ofSeconds(number).toString().substring(2).toLowerCase() + "): did you mean "
                    + String.join(" or ", meant) + "?");
            this.number = number;
            this.meant = meant;
        }

        private static List<String> meant(long number) {
            return List.of(
                    number + "ms",
                    number % 1000 == 0
                            ? number / 1000 + "s"
                            : Duration.ofMillis(number).toString());
        }

        /** @return the number as written */
        public long number() {
            return number;
        }

        /** @return what was probably meant, written with units: {@code 30000ms} and {@code 30s} */
        public List<String> meant() {
            return meant;
        }
    }
}
