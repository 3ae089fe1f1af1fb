package io.locktable.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/** Order statistics and the number formats of the report. */
final class Stats {

    private final double[] sorted;

    private Stats(double[] values) {
        this.sorted = values.clone();
        Arrays.sort(sorted);
    }

    static Stats of(double... values) {
        return new Stats(values);
    }

    static Stats of(Collection<? extends Number> values) {
        return new Stats(values.stream().mapToDouble(Number::doubleValue).toArray());
    }

    int count() {
        return sorted.length;
    }

    /** Nearest-rank percentile; NaN without values. */
    double pct(double percent) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    double median() {
        int n = sorted.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    double min() {
        return sorted.length == 0 ? Double.NaN : sorted[0];
    }

    double max() {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
    }

    double mean() {
        return Arrays.stream(sorted).average().orElse(Double.NaN);
    }

    /** The median with its range, values divided by {@code scale}: {@code 1.2 (1.1–1.4)}. */
    String range(double scale) {
        if (sorted.length == 0) {
            return "n/a";
        }
        String median = num(median() / scale);
        return min() == max() ? median : median + " (" + num(min() / scale) + "–" + num(max() / scale) + ")";
    }

    /** Up to three significant figures: {@code 2}, {@code 0.667}, {@code 12.3}, {@code 1520}. */
    static String num(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (Math.abs(value - Math.rint(value)) < 1e-9 && Math.abs(value) < 1e15) {
            return String.format(Locale.ROOT, "%,d", Math.round(value));
        }
        double abs = Math.abs(value);
        String pattern = abs >= 100 ? "%,.0f" : abs >= 10 ? "%.1f" : abs >= 1 ? "%.2f" : "%.3g";
        return String.format(Locale.ROOT, pattern, value);
    }

    static String duration(Duration duration) {
        return duration.toMillis() >= 1000 ? num(duration.toMillis() / 1000.0) + " s" : ms(duration.toNanos());
    }

    static String ms(double nanos) {
        return num(nanos / 1e6) + " ms";
    }

    static String seconds(double nanos) {
        return num(nanos / 1e9) + " s";
    }

    static String percent(double fraction) {
        return num(fraction * 100) + " %";
    }

    /** The machine's 1-minute load average. */
    static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static void log(String message) {
        System.out.printf("[bench %s] %s%n", java.time.LocalTime.now().withNano(0), message);
    }
}
