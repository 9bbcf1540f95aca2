package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeSet;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;

import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Sample;
import org.mooncake.osgi.store.spi.metrics.MetricSource;

/** Reading one metric source in tests: its families by name, one sample's value, a figure awaited. */
final class MetricsAt {
    private MetricsAt() {
    }

    static Map<String, Metric> families(MetricSource source) {
        return source.metrics().stream().collect(Collectors.toMap(Metric::name, m -> m));
    }

    static double value(MetricSource source, String family, String suffix, Map<String, String> labels) {
        Metric m = families(source).get(family);
        assertTrue(m != null, "no family " + family);
        return m.samples().stream().filter(s -> s.suffix().equals(suffix) && s.labels().equals(labels))
                .mapToDouble(Sample::value).findFirst()
                .orElseThrow(() -> new AssertionError("no sample " + family + suffix + labels + " in " + m));
    }

    /** {@code name=TYPE} lines in order, for a readable comparison. */
    static TreeSet<String> sorted(Map<String, ?> byName) {
        return byName.entrySet().stream().map(Object::toString).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Polls {@code figure}, doing {@code work} between reads, until it reaches {@code atLeast}; fails after 30 s. */
    static double until(DoubleSupplier figure, double atLeast, Runnable work) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        double v;
        while ((v = figure.getAsDouble()) < atLeast) {
            assertTrue(System.nanoTime() < deadline, "still " + v + ", expected " + atLeast + " or more");
            work.run();
        }
        return v;
    }
}
