package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class JmhChartsTest {
    @Test
    void barsRelativeToABaselineAreRatiosWithinTheirSeriesAndSeriesWithoutItAreLeftOut() {
        Map<String, Map<String, double[]>> series = new LinkedHashMap<>();
        series.put("65536", new LinkedHashMap<>(Map.of("copyOnly", new double[] {0.8, 0.04}, "nativeKernel",
                new double[] {1.2, 0.08})));
        series.put("32062464", new LinkedHashMap<>(Map.of("copyOnly", new double[] {1250, 50}, "nativeKernel",
                new double[] {1125, 25})));
        series.put("other", new LinkedHashMap<>(Map.of("nativeKernel", new double[] {1, 0})));
        Map<String, Map<String, double[]>> r = JmhCharts.relativeTo(series, "copyOnly");
        assertEquals(2, r.size());
        assertArrayEquals(new double[] {1.0, 0.05}, r.get("65536").get("copyOnly"), 1e-12);
        assertArrayEquals(new double[] {1.5, 0.1}, r.get("65536").get("nativeKernel"), 1e-12);
        assertArrayEquals(new double[] {0.9, 0.02}, r.get("32062464").get("nativeKernel"), 1e-12);
    }
}
