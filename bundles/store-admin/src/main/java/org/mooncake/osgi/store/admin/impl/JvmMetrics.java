package org.mooncake.osgi.store.admin.impl;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Sample;
import org.mooncake.osgi.store.spi.metrics.Metric.Type;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Component;

/**
 * The JVM's own figures for {@code /metrics} (memory by area and pool, buffer pools, collections
 * and their time per collector, threads, classes), under the names of the Prometheus Java
 * client's hotspot exports ({@code jvm_memory_bytes_used{area}}, {@code jvm_gc_collection_seconds},
 * {@code jvm_threads_current}, ...) so that dashboards and alerts written for those work
 * unchanged. Read from the platform MXBeans at every scrape; a maximum the JVM does not define is
 * -1, as the Java client writes it. Threads are platform threads: the JVM does not count virtual
 * threads there.
 */
@Component(service = MetricSource.class)
public final class JvmMetrics implements MetricSource {

    @Override
    public List<Metric> metrics() {
        List<Metric> out = new ArrayList<>();
        memory(out);
        gc(out);
        threads(out);
        classes(out);
        out.add(new Metric("jvm_info", "VM version info", Type.GAUGE, List.of(Sample.of(Map.of(
                "runtime", String.valueOf(System.getProperty("java.runtime.name")),
                "vendor", String.valueOf(System.getProperty("java.vm.vendor")),
                "version", String.valueOf(System.getProperty("java.runtime.version"))), 1))));
        return out;
    }

    private static void memory(List<Metric> out) {
        var mx = ManagementFactory.getMemoryMXBean();
        MemoryUsage heap = mx.getHeapMemoryUsage();
        MemoryUsage nonHeap = mx.getNonHeapMemoryUsage();
        out.add(byArea("jvm_memory_bytes_used", "Used bytes of a given JVM memory area", heap.getUsed(), nonHeap.getUsed()));
        out.add(byArea("jvm_memory_bytes_committed", "Committed bytes of a given JVM memory area",
                heap.getCommitted(), nonHeap.getCommitted()));
        out.add(byArea("jvm_memory_bytes_max", "Max bytes of a given JVM memory area (-1: undefined)",
                heap.getMax(), nonHeap.getMax()));
        out.add(byArea("jvm_memory_bytes_init", "Initial bytes of a given JVM memory area (-1: undefined)",
                heap.getInit(), nonHeap.getInit()));
        List<Sample> used = new ArrayList<>();
        List<Sample> committed = new ArrayList<>();
        List<Sample> max = new ArrayList<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage u = pool.getUsage();
            if (u == null) { // a pool no longer valid
                continue;
            }
            Map<String, String> label = Map.of("pool", pool.getName());
            used.add(Sample.of(label, u.getUsed()));
            committed.add(Sample.of(label, u.getCommitted()));
            max.add(Sample.of(label, u.getMax()));
        }
        out.add(new Metric("jvm_memory_pool_bytes_used", "Used bytes of a given JVM memory pool", Type.GAUGE, used));
        out.add(new Metric("jvm_memory_pool_bytes_committed", "Committed bytes of a given JVM memory pool",
                Type.GAUGE, committed));
        out.add(new Metric("jvm_memory_pool_bytes_max", "Max bytes of a given JVM memory pool (-1: undefined)",
                Type.GAUGE, max));
        List<Sample> bufferUsed = new ArrayList<>();
        List<Sample> bufferCapacity = new ArrayList<>();
        List<Sample> buffers = new ArrayList<>();
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            Map<String, String> label = Map.of("pool", pool.getName());
            bufferUsed.add(Sample.of(label, pool.getMemoryUsed()));
            bufferCapacity.add(Sample.of(label, pool.getTotalCapacity()));
            buffers.add(Sample.of(label, pool.getCount()));
        }
        out.add(new Metric("jvm_buffer_pool_used_bytes", "Used bytes of a given JVM buffer pool (direct, mapped)",
                Type.GAUGE, bufferUsed));
        out.add(new Metric("jvm_buffer_pool_capacity_bytes", "Bytes capacity of a given JVM buffer pool",
                Type.GAUGE, bufferCapacity));
        out.add(new Metric("jvm_buffer_pool_used_buffers", "Used buffers of a given JVM buffer pool", Type.GAUGE, buffers));
    }

    private static Metric byArea(String name, String help, long heap, long nonHeap) {
        return new Metric(name, help, Type.GAUGE,
                List.of(Sample.of(Map.of("area", "heap"), heap), Sample.of(Map.of("area", "nonheap"), nonHeap)));
    }

    /** Collections and their time per collector, as the Java client's summary without quantiles. */
    private static void gc(List<Metric> out) {
        List<Sample> samples = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            long count = gc.getCollectionCount();
            long millis = gc.getCollectionTime();
            if (count < 0 || millis < 0) { // undefined for this collector
                continue;
            }
            Map<String, String> label = Map.of("gc", gc.getName());
            samples.add(new Sample("_count", label, count));
            samples.add(new Sample("_sum", label, millis / 1e3));
        }
        out.add(new Metric("jvm_gc_collection_seconds", "Time spent in a given JVM garbage collector in seconds",
                Type.SUMMARY, samples));
    }

    private static void threads(List<Metric> out) {
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        out.add(Metric.gauge("jvm_threads_current", "Current thread count of a JVM (platform threads)", t.getThreadCount()));
        out.add(Metric.gauge("jvm_threads_daemon", "Daemon thread count of a JVM", t.getDaemonThreadCount()));
        out.add(Metric.gauge("jvm_threads_peak", "Peak thread count of a JVM", t.getPeakThreadCount()));
        out.add(Metric.counter("jvm_threads_started_total", "Started thread count of a JVM", t.getTotalStartedThreadCount()));
    }

    private static void classes(List<Metric> out) {
        ClassLoadingMXBean c = ManagementFactory.getClassLoadingMXBean();
        out.add(Metric.gauge("jvm_classes_currently_loaded", "The number of classes that are currently loaded in the JVM",
                c.getLoadedClassCount()));
        out.add(Metric.counter("jvm_classes_loaded_total",
                "The total number of classes that have been loaded since the JVM has started execution",
                c.getTotalLoadedClassCount()));
        out.add(Metric.counter("jvm_classes_unloaded_total",
                "The total number of classes that have been unloaded since the JVM has started execution",
                c.getUnloadedClassCount()));
    }

}
