package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The machine a benchmark ran on, written beside its figures: figures from two machines (or two
 * days of one shared VM) are not comparable, and a result without its machine invites that.
 */
public final class Machine {
    private Machine() {
    }

    /** CPU model and count, memory, JDK, OS and the time of the run. */
    public static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", cpuModel(Path.of("/proc/cpuinfo")).orElse(System.getProperty("os.arch")));
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            m.put("memoryGiB", Math.round(os.getTotalMemorySize() / (double) (1L << 30)));
        }
        m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("startedAt", Instant.now().toString());
        return m;
    }

    /** The first {@code model name} of a {@code /proc/cpuinfo}-style file, if there is one. */
    static Optional<String> cpuModel(Path cpuinfo) {
        try {
            return Files.readAllLines(cpuinfo).stream().filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).strip());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** One line for a report's head. */
    public static String line(Map<String, Object> m) {
        return String.format(java.util.Locale.ROOT, "machine: %s, %s CPUs, %s GiB, %s, %s, %s", m.get("cpu"), m.get("cpus"),
                m.getOrDefault("memoryGiB", "?"), m.get("jdk"), m.get("os"), m.get("startedAt"));
    }
}
