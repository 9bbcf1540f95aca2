package org.mooncake.osgi.epd.demo;

import java.util.Collection;

/** Percentiles of a sample, interpolated between the two nearest ranks (numpy's default). */
public final class Percentiles {
    private Percentiles() {
    }

    /**
     * The {@code p}-th percentile (0..100) of {@code values}; NaN for an empty sample, the value
     * itself for one.
     */
    public static double of(Collection<Double> values, double p) {
        if (p < 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be within 0..100: " + p);
        }
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double rank = p / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = (int) Math.ceil(rank);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
    }
}
