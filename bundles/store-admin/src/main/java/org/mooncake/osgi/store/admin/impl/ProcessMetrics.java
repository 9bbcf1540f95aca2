package org.mooncake.osgi.store.admin.impl;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Component;

/**
 * The process's own figures for {@code /metrics} under the Prometheus client libraries' standard
 * names: CPU time ({@code process_cpu_seconds_total}), start time and uptime, open and maximum
 * file descriptors, resident and virtual size. Read at every scrape from the platform's
 * operating-system MXBean and, for the sizes, Linux's {@code /proc/self/status} (procfs, no disk
 * I/O). A figure the platform does not offer (file descriptors off Unix, the sizes off Linux) is
 * left out rather than written as a made-up value.
 */
@Component(service = MetricSource.class)
public final class ProcessMetrics implements MetricSource {
    private static final Path PROC_STATUS = Path.of("/proc/self/status");

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName os = name(ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME);

    private static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (JMException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public List<Metric> metrics() {
        List<Metric> out = new ArrayList<>();
        RuntimeMXBean rt = ManagementFactory.getRuntimeMXBean();
        long cpuNanos = osLong("ProcessCpuTime");
        if (cpuNanos >= 0) {
            out.add(Metric.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds",
                    cpuNanos / 1e9));
        }
        out.add(Metric.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds",
                rt.getStartTime() / 1e3));
        out.add(Metric.gauge("process_uptime_seconds", "Time since the JVM started in seconds", rt.getUptime() / 1e3));
        long open = osLong("OpenFileDescriptorCount");
        long max = osLong("MaxFileDescriptorCount");
        if (open >= 0 && max >= 0) {
            out.add(Metric.gauge("process_open_fds", "Number of open file descriptors", open));
            out.add(Metric.gauge("process_max_fds", "Maximum number of open file descriptors", max));
        }
        procStatus(out);
        return out;
    }

    /** A long attribute of the operating system MXBean, or -1 where this platform has none. */
    private long osLong(String attribute) {
        try {
            return server.getAttribute(os, attribute) instanceof Number n ? n.longValue() : -1;
        } catch (JMException | RuntimeException e) {
            return -1;
        }
    }

    /** Resident and virtual size from Linux's {@code /proc/self/status}; nothing elsewhere. */
    private static void procStatus(List<Metric> out) {
        if (!Files.isReadable(PROC_STATUS)) {
            return;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(PROC_STATUS);
        } catch (IOException e) {
            return;
        }
        long virtual = kib(lines, "VmSize:");
        long resident = kib(lines, "VmRSS:");
        if (virtual >= 0) {
            out.add(Metric.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes", virtual * 1024));
        }
        if (resident >= 0) {
            out.add(Metric.gauge("process_resident_memory_bytes", "Resident memory size in bytes", resident * 1024));
        }
    }

    /** The kB figure of a {@code /proc/self/status} line such as {@code VmRSS:   1234 kB}; -1 if absent. */
    static long kib(List<String> lines, String field) {
        for (String line : lines) {
            if (line.startsWith(field)) {
                String[] parts = line.substring(field.length()).trim().split("\\s+");
                try {
                    return Long.parseLong(parts[0]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
