package io.locktable.bench;

import java.util.Arrays;
import java.util.Collection;

/**
 * Order statistics of a sample: median, nearest-rank percentiles, minimum and maximum.
 *
 * @param sorted the values in ascending order
 */
public record Summary(double[] sorted) {

    /** Keeps a sorted copy. */
    public Summary {
        sorted = sorted.clone();
        Arrays.sort(sorted);
    }

    /**
     * Summarises doubles.
     *
     * @param values the values
     * @return the summary
     */
    public static Summary of(double... values) {
        return new Summary(values);
    }

    /**
     * Summarises a collection of numbers.
     *
     * @param values the values
     * @return the summary
     */
    public static Summary of(Collection<? extends Number> values) {
        return new Summary(values.stream().mapToDouble(Number::doubleValue).toArray());
    }

    /**
     * Summarises the first {@code count} longs of an array.
     *
     * @param values the array
     * @param count how many of its values
     * @return the summary
     */
    public static Summary of(long[] values, int count) {
        double[] copy = new double[count];
        for (int i = 0; i < count; i++) {
            copy[i] = values[i];
        }
        return new Summary(copy);
    }

    /**
     * The number of values.
     *
     * @return the count
     */
    public int count() {
        return sorted.length;
    }

    /**
     * The median (the mean of the middle two for an even count).
     *
     * @return the median, NaN for no values
     */
    public double median() {
        int n = sorted.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /**
     * A nearest-rank percentile.
     *
     * @param percent from 0 to 100
     * @return the value, NaN for no values
     */
    public double percentile(double percent) {
        int n = sorted.length;
        if (n == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(percent / 100.0 * n);
        return sorted[Math.max(0, Math.min(n - 1, rank - 1))];
    }

    /**
     * The smallest value.
     *
     * @return the minimum, NaN for no values
     */
    public double min() {
        return sorted.length == 0 ? Double.NaN : sorted[0];
    }

    /**
     * The largest value.
     *
     * @return the maximum, NaN for no values
     */
    public double max() {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
    }

    /**
     * The arithmetic mean.
     *
     * @return the mean, NaN for no values
     */
    public double mean() {
        return sorted.length == 0 ? Double.NaN : Arrays.stream(sorted).average().orElse(Double.NaN);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Summary s && Arrays.equals(sorted, s.sorted);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sorted);
    }

    @Override
    public String toString() {
        return "Summary[n=" + count() + ", median=" + median() + ", min=" + min() + ", max=" + max() + "]";
    }
}
