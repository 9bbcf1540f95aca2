package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MachineTest {
    @Test
    void theCpuModelIsTheFirstModelNameLineAndAbsentWhereThereIsNone(@TempDir Path dir) throws IOException {
        Path cpuinfo = dir.resolve("cpuinfo");
        Files.writeString(cpuinfo, "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\n"
                + "processor\t: 1\nmodel name\t: AMD EPYC 9B14\n");
        assertEquals(Optional.of("AMD EPYC 9B14"), Machine.cpuModel(cpuinfo));
        Files.writeString(cpuinfo, "processor\t: 0\n");
        assertEquals(Optional.empty(), Machine.cpuModel(cpuinfo));
        assertEquals(Optional.empty(), Machine.cpuModel(dir.resolve("missing")));
    }

    @Test
    void theDescriptionNamesCpusJdkAndTime() {
        Map<String, Object> m = Machine.describe();
        assertEquals(Runtime.getRuntime().availableProcessors(), m.get("cpus"));
        assertTrue(m.get("jdk").toString().contains(System.getProperty("java.runtime.version")), m.toString());
        String line = Machine.line(m);
        assertTrue(line.startsWith("machine: ") && line.contains(m.get("startedAt").toString()), line);
    }
}
