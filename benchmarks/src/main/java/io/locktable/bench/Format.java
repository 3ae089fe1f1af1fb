package io.locktable.bench;

import java.time.Duration;
import java.util.Locale;

/** Numbers and durations as the report shows them. */
public final class Format {

    private Format() {}

    /**
     * A number with up to three significant decimals: {@code 2}, {@code 0.67}, {@code 12.3}, {@code 1520}.
     *
     * @param value the number
     * @return the text
     */
    public static String num(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (Math.abs(value - Math.rint(value)) < 1e-6 && Math.abs(value) < 1e15) {
            return Long.toString(Math.round(value));
        }
        double abs = Math.abs(value);
        String pattern = abs >= 100 ? "%.0f" : abs >= 10 ? "%.1f" : abs >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, value);
    }

    /**
     * A duration in the largest unit that keeps it short: {@code 20 s}, {@code 3.33 s}, {@code 250 ms}.
     *
     * @param duration the duration
     * @return the text
     */
    public static String duration(Duration duration) {
        long millis = duration.toMillis();
        if (millis >= 1000) {
            return num(millis / 1000.0) + " s";
        }
        return num(duration.toNanos() / 1e6) + " ms";
    }

    /**
     * Milliseconds from nanoseconds.
     *
     * @param nanos nanoseconds
     * @return the text, such as {@code 1.23 ms}
     */
    public static String millis(double nanos) {
        return num(nanos / 1e6) + " ms";
    }

    /**
     * Seconds from nanoseconds.
     *
     * @param nanos nanoseconds
     * @return the text, such as {@code 3.41 s}
     */
    public static String seconds(double nanos) {
        return num(nanos / 1e9) + " s";
    }

    /**
     * A median with its range: {@code 1.2 (1.1–1.4)}.
     *
     * @param summary the values
     * @param unit a suffix such as {@code " ms"}, or empty
     * @param scale what to divide the values by
     * @return the text
     */
    public static String medianRange(Summary summary, String unit, double scale) {
        if (summary.count() == 0) {
            return "n/a";
        }
        if (summary.min() == summary.max()) {
            return num(summary.median() / scale) + unit;
        }
        return num(summary.median() / scale) + unit + " (" + num(summary.min() / scale) + "–"
                + num(summary.max() / scale) + ")";
    }
}
