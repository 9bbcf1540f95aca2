package org.mooncake.osgi.store.spi.metrics;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One metric family: its name, help text, type and samples. A summary's samples carry their
 * suffix ({@code _sum}, {@code _count}) or a {@code quantile} label, as Prometheus expects.
 */
public record Metric(String name, String help, Type type, List<Sample> samples) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    /** How Prometheus should read the samples. */
    public enum Type {
        COUNTER, GAUGE, SUMMARY
    }

    /** One value, with its labels and the suffix it adds to the family's name ("" for none). */
    public record Sample(String suffix, Map<String, String> labels, double value) {
        public Sample {
            suffix = suffix == null ? "" : suffix;
            labels = labels == null ? Map.of() : Map.copyOf(labels);
            if (!suffix.isEmpty() && !NAME.matcher(suffix).matches()) {
                throw new IllegalArgumentException("bad metric suffix: " + suffix);
            }
            for (String label : labels.keySet()) {
                if (!NAME.matcher(label).matches() || label.contains(":")) {
                    throw new IllegalArgumentException("bad label name: " + label);
                }
            }
        }

        /** A value without labels or suffix. */
        public static Sample of(double value) {
            return new Sample("", Map.of(), value);
        }

        /** A value with labels and no suffix. */
        public static Sample of(Map<String, String> labels, double value) {
            return new Sample("", labels, value);
        }
    }

    public Metric {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad metric name: " + name);
        }
        help = help == null ? "" : help;
        if (type == null) {
            throw new IllegalArgumentException("metric type is required");
        }
        samples = samples == null ? List.of() : List.copyOf(samples);
    }

    /** A counter of one unlabelled value. */
    public static Metric counter(String name, String help, double value) {
        return new Metric(name, help, Type.COUNTER, List.of(Sample.of(value)));
    }

    /** A gauge of one unlabelled value. */
    public static Metric gauge(String name, String help, double value) {
        return new Metric(name, help, Type.GAUGE, List.of(Sample.of(value)));
    }
}
