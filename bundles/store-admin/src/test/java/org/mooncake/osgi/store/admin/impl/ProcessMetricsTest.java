package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Type;

/** The process's figures: the standard names, and values that follow what the process does. */
class ProcessMetricsTest {
    private static final boolean LINUX = Files.isDirectory(Path.of("/proc/self/fd"));
    private final ProcessMetrics source = new ProcessMetrics();

    private double value(String family) {
        return MetricsAt.value(source, family, "", Map.of());
    }

    @Test
    void theFamiliesHaveTheStandardNamesAndTypes() {
        Map<String, Type> expected = new HashMap<>(Map.of("process_cpu_seconds_total", Type.COUNTER,
                "process_start_time_seconds", Type.GAUGE, "process_uptime_seconds", Type.GAUGE));
        if (LINUX) {
            expected.putAll(Map.of("process_open_fds", Type.GAUGE, "process_max_fds", Type.GAUGE,
                    "process_resident_memory_bytes", Type.GAUGE, "process_virtual_memory_bytes", Type.GAUGE));
        }
        assertEquals(MetricsAt.sorted(expected), MetricsAt.sorted(MetricsAt.families(source).values().stream()
                .collect(Collectors.toMap(Metric::name, Metric::type))));
    }

    /** Work done here shows as CPU time; the start time is the JVM's, to the millisecond. */
    @Test
    void cpuTimeGrowsWithWorkAndTheStartTimeIsTheJvms() {
        double before = value("process_cpu_seconds_total");
        long[] sink = {0};
        MetricsAt.until(() -> value("process_cpu_seconds_total"), before + 0.05, () -> {
            for (int i = 0; i < 5_000_000; i++) {
                sink[0] += i * 31L ^ sink[0];
            }
        });
        assertEquals(ManagementFactory.getRuntimeMXBean().getStartTime() / 1e3, value("process_start_time_seconds"), 1e-6);
        double uptime = value("process_uptime_seconds");
        assertTrue(uptime > 0 && uptime * 1e3 <= ManagementFactory.getRuntimeMXBean().getUptime() + 1, "uptime " + uptime);
    }

    /** Files this test opens are counted among the open descriptors (Linux: what /proc/self/fd lists). */
    @Test
    void openFileDescriptorsFollowTheFilesThisProcessOpens() throws IOException {
        if (!LINUX) {
            assertTrue(!MetricsAt.families(source).containsKey("process_open_fds"), "left out where the platform has no figure");
            return;
        }
        double before = value("process_open_fds");
        Path file = Files.createTempFile("fds", ".tmp");
        List<FileChannel> open = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                open.add(FileChannel.open(file));
            }
            double during = value("process_open_fds");
            assertTrue(during >= before + 40, before + " then " + during);
            assertTrue(value("process_max_fds") >= during);
        } finally {
            for (FileChannel c : open) {
                c.close();
            }
            Files.delete(file);
        }
        double resident = value("process_resident_memory_bytes");
        assertTrue(resident > 0 && resident <= value("process_virtual_memory_bytes"), "resident " + resident);
    }

    @Test
    void procStatusSizesAreReadInKibibytes() {
        List<String> status = List.of("Name:\tjava", "VmSize:\t 9106224 kB", "VmRSS:\t  144216 kB", "VmBad:\tx kB");
        assertEquals(9_106_224, ProcessMetrics.kib(status, "VmSize:"));
        assertEquals(144_216, ProcessMetrics.kib(status, "VmRSS:"));
        assertEquals(-1, ProcessMetrics.kib(status, "VmSwap:"));
        assertEquals(-1, ProcessMetrics.kib(status, "VmBad:"));
    }
}
