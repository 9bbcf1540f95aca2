package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Sample;
import org.mooncake.osgi.store.spi.metrics.Metric.Type;

/** The JVM's figures: the Prometheus Java client's names and types, and values that follow what the JVM does. */
class JvmMetricsTest {
    private final JvmMetrics source = new JvmMetrics();

    private Map<String, Metric> families() {
        return MetricsAt.families(source);
    }

    private double value(String family, Map<String, String> labels) {
        return MetricsAt.value(source, family, "", labels);
    }

    @Test
    void theFamiliesHaveTheJavaClientsNamesAndTypes() {
        Map<String, Type> expected = Map.ofEntries(
                Map.entry("jvm_memory_bytes_used", Type.GAUGE), Map.entry("jvm_memory_bytes_committed", Type.GAUGE),
                Map.entry("jvm_memory_bytes_max", Type.GAUGE), Map.entry("jvm_memory_bytes_init", Type.GAUGE),
                Map.entry("jvm_memory_pool_bytes_used", Type.GAUGE), Map.entry("jvm_memory_pool_bytes_committed", Type.GAUGE),
                Map.entry("jvm_memory_pool_bytes_max", Type.GAUGE), Map.entry("jvm_buffer_pool_used_bytes", Type.GAUGE),
                Map.entry("jvm_buffer_pool_capacity_bytes", Type.GAUGE), Map.entry("jvm_buffer_pool_used_buffers", Type.GAUGE),
                Map.entry("jvm_gc_collection_seconds", Type.SUMMARY), Map.entry("jvm_threads_current", Type.GAUGE),
                Map.entry("jvm_threads_daemon", Type.GAUGE), Map.entry("jvm_threads_peak", Type.GAUGE),
                Map.entry("jvm_threads_started_total", Type.COUNTER), Map.entry("jvm_classes_currently_loaded", Type.GAUGE),
                Map.entry("jvm_classes_loaded_total", Type.COUNTER), Map.entry("jvm_classes_unloaded_total", Type.COUNTER),
                Map.entry("jvm_info", Type.GAUGE));
        assertEquals(MetricsAt.sorted(expected), MetricsAt.sorted(families().values().stream()
                .collect(Collectors.toMap(Metric::name, Metric::type))));
        families().values().forEach(m -> assertTrue(!m.help().isBlank(), m.name() + " has no help"));
    }

    @Test
    void heapAndNonHeapByAreaAndEveryMemoryPoolByName() {
        for (String area : List.of("heap", "nonheap")) {
            double used = value("jvm_memory_bytes_used", Map.of("area", area));
            double committed = value("jvm_memory_bytes_committed", Map.of("area", area));
            double max = value("jvm_memory_bytes_max", Map.of("area", area));
            assertTrue(used > 0 && used <= committed, area + ": used " + used + ", committed " + committed);
            assertTrue(max == -1 || max >= committed, area + ": max " + max);
        }
        assertEquals(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax(),
                value("jvm_memory_bytes_max", Map.of("area", "heap")));
        Set<String> pools = ManagementFactory.getMemoryPoolMXBeans().stream().map(MemoryPoolMXBean::getName)
                .collect(Collectors.toSet());
        Set<String> exported = families().get("jvm_memory_pool_bytes_used").samples().stream()
                .map(s -> s.labels().get("pool")).collect(Collectors.toSet());
        assertEquals(pools, exported);
    }

    /** Garbage made here is collected, and the collectors' counts say so. */
    @Test
    void collectionsAreCountedPerCollector() {
        DoubleSupplier collections = () -> families().get("jvm_gc_collection_seconds").samples().stream()
                .filter(s -> s.suffix().equals("_count")).mapToDouble(Sample::value).sum();
        double before = collections.getAsDouble();
        List<byte[]> keep = new ArrayList<>();
        MetricsAt.until(collections, before + 1, () -> {
            keep.add(new byte[1 << 20]);
            if (keep.size() > 64) {
                keep.clear();
            }
        });
        for (Sample s : families().get("jvm_gc_collection_seconds").samples()) {
            assertTrue(Set.of("_count", "_sum").contains(s.suffix()) && s.labels().containsKey("gc") && s.value() >= 0,
                    s.toString());
        }
    }

    /** A thread started here is counted live until it ends, and among those started. */
    @Test
    void threadsLiveDaemonPeakAndStarted() throws InterruptedException {
        double started = value("jvm_threads_started_total", Map.of());
        java.util.concurrent.CountDownLatch end = new java.util.concurrent.CountDownLatch(1);
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(value("jvm_threads_started_total", Map.of()) >= started + 1);
            double current = value("jvm_threads_current", Map.of());
            double daemon = value("jvm_threads_daemon", Map.of());
            double peak = value("jvm_threads_peak", Map.of());
            assertTrue(daemon >= 1 && daemon <= current && current <= peak, current + " " + daemon + " " + peak);
        } finally {
            end.countDown();
            t.join();
        }
    }

    @Test
    void theJvmIsNamed() {
        Sample info = families().get("jvm_info").samples().getFirst();
        assertEquals(1, info.value());
        assertEquals(System.getProperty("java.runtime.version"), info.labels().get("version"));
    }
}
