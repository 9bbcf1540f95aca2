package org.mooncake.osgi.device.cuda.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.device.cuda.CudaDriver;

class DeviceCopyBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void withoutADeviceItReportsWhyAndFailsUnlessAllowed() throws Exception {
        assumeFalse(CudaDriver.load().present(), "libcuda.so.1 loads here: gpu-check runs the benchmark");
        var bytes = new ByteArrayOutputStream();
        var out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        assertEquals(2, DeviceCopyBenchmark.run(new String[] {"--quick", "--out", dir.toString()}, out));
        assertEquals(0, DeviceCopyBenchmark.run(new String[] {"--quick", "--allow-no-device", "--out", dir.toString()}, out));
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("no device: no CUDA driver here (libcuda.so.1"));
        String json = Files.readString(dir.resolve("device-copy.json"));
        assertTrue(json.contains("\"device\": null") && json.contains("libcuda.so.1"), json);
    }

    @Test
    void onASimulatedDeviceItMeasuresEverySizeDirectionAndStaging() throws Exception {
        var bytes = new ByteArrayOutputStream();
        assertEquals(0, DeviceCopyBenchmark.run(new String[] {"--simulated", "--quick", "--rounds", "3",
                "--max-size", String.valueOf(1 << 20), "--out", dir.toString()},
                new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        String table = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("simulated") && table.contains("1 MiB") && table.contains("GB/s"), table);
        var csv = Files.readAllLines(dir.resolve("device-copy.csv"));
        assertEquals("size_bytes,direction,staging,rounds,reps,median_us,min_us,max_us,gb_per_s", csv.getFirst());
        assertEquals(1 + 3 * 5, csv.size(), "64 KiB, 256 KiB, 1 MiB x HtoD/DtoH pageable/pinned + DtoD");
        assertTrue(csv.get(1).startsWith("65536,HtoD,pageable,3,256,"), csv.get(1));
        String json = Files.readString(dir.resolve("device-copy.json"));
        assertTrue(json.contains("\"direction\": \"DtoD\"") && json.contains("\"rounds\": 3"), json);
    }

    @Test
    void refusesUnknownArguments() {
        assertEquals(64, DeviceCopyBenchmark.run(new String[] {"--fast"}, new PrintStream(new ByteArrayOutputStream())));
    }

    @Test
    void escapesJson() {
        assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", DeviceCopyBenchmark.json("a\"b\\c\n\u0001"));
        assertEquals("64 KiB", DeviceCopyBenchmark.size(64 << 10));
        assertEquals("256 MiB", DeviceCopyBenchmark.size(256L << 20));
    }
}
