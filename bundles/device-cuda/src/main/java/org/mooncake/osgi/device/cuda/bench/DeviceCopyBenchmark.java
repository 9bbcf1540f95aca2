package org.mooncake.osgi.device.cuda.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.mooncake.osgi.device.cuda.CudaDeviceMemory;
import org.mooncake.osgi.device.cuda.CudaDriver;
import org.mooncake.osgi.device.testing.HostBackedDeviceMemory;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;

/**
 * Host/device copy bandwidth through the CUDA driver: host to device and device to host from
 * pageable and from pinned ({@code cuMemHostRegister}) host memory, and device to device, for
 * sizes from 64 KiB to 256 MiB. Each figure is the median of rounds; a round repeats the copy
 * until it has moved at least a minimum (small copies are timed together) and ends with
 * {@code cuCtxSynchronize}. Prints a table and writes {@code device-copy.csv} and
 * {@code device-copy.json} into the output folder.
 *
 * <pre>
 * DeviceCopyBenchmark [--quick] [--out DIR] [--device N] [--rounds N] [--max-size BYTES] [--allow-no-device]
 *                     [--simulated]
 * </pre>
 *
 * {@code --simulated} measures {@link HostBackedDeviceMemory} instead (host copies, no pinning):
 * it checks the benchmark itself on a machine without a GPU; its figures mean nothing for a GPU.
 *
 * {@code --quick} (about 10 s on a GPU, under 60 s anywhere): 5 rounds of at least 16 MiB. Without
 * a CUDA driver it writes the reason into the JSON and exits 2, or 0 with
 * {@code --allow-no-device}.
 */
public final class DeviceCopyBenchmark {
    static final long[] SIZES = {64L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20};

    /** What the measurement needs besides the copies: pinning host memory and waiting for the device. */
    interface Device {
        DeviceMemory memory();

        void pin(MemorySegment host);

        void unpin(MemorySegment host);

        void synchronize();
    }

    /** One measured figure. */
    record Row(long size, String direction, String staging, int rounds, int reps, double medianMicros,
            double minMicros, double maxMicros) {
        double gbPerSecond() {
            return size / (medianMicros * 1e3); // bytes per ns = GB/s
        }
    }

    private DeviceCopyBenchmark() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs with these arguments; the exit status. */
    public static int run(String[] args, PrintStream out) {
        boolean quick = false;
        boolean allowNoDevice = false;
        boolean simulated = false;
        Path dir = Path.of("target", "device-copy-bench");
        int ordinal = 0;
        int rounds = -1;
        long maxSize = Long.MAX_VALUE;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--allow-no-device" -> allowNoDevice = true;
                case "--simulated" -> simulated = true;
                case "--out" -> dir = Path.of(args[++i]);
                case "--device" -> ordinal = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--max-size" -> maxSize = Long.parseLong(args[++i]);
                case "--help", "-h" -> {
                    out.println("DeviceCopyBenchmark [--quick] [--out DIR] [--device N] [--rounds N] [--max-size BYTES]"
                            + " [--allow-no-device] [--simulated]");
                    return 0;
                }
                default -> {
                    out.println("unknown argument " + args[i] + " (--help)");
                    return 64;
                }
            }
        }
        if (rounds < 0) {
            rounds = quick ? 5 : 21;
        }
        long minPerRound = quick ? 16L << 20 : 64L << 20;
        final long cap = maxSize;
        long[] sizes = Arrays.stream(SIZES).filter(s -> s <= cap).toArray();
        try {
            Files.createDirectories(dir);
            if (simulated) {
                try (var memory = new HostBackedDeviceMemory()) {
                    return measureAndWrite(new Device() {
                        public DeviceMemory memory() {
                            return memory;
                        }

                        public void pin(MemorySegment host) {
                        }

                        public void unpin(MemorySegment host) {
                        }

                        public void synchronize() {
                        }
                    }, memory.describe() + " (simulated: host copies, pinned = pageable)", 0, quick, rounds,
                            minPerRound, sizes, dir, out);
                }
            }
            CudaDriver.Load load = CudaDriver.load();
            if (load.driver().isEmpty()) {
                out.println("device copy benchmark: no device: " + load.reason());
                Files.writeString(dir.resolve("device-copy.json"), "{\n  \"device\": null,\n  \"reason\": "
                        + json(load.reason()) + ",\n  \"rows\": []\n}\n");
                return allowNoDevice ? 0 : 2;
            }
            CudaDriver driver = load.driver().get();
            try (CudaDeviceMemory memory = new CudaDeviceMemory(driver, new int[] {ordinal})) {
                return measureAndWrite(new Device() {
                    public DeviceMemory memory() {
                        return memory;
                    }

                    public void pin(MemorySegment host) {
                        driver.hostRegister(host, 0);
                    }

                    public void unpin(MemorySegment host) {
                        driver.hostUnregister(host);
                    }

                    public void synchronize() {
                        driver.synchronize();
                    }
                }, memory.describe(), 0, quick, rounds, minPerRound, sizes, dir, out);
            }
        } catch (IOException | RuntimeException e) {
            out.println("device copy benchmark failed: " + e);
            e.printStackTrace(out);
            return 1;
        }
    }

    private static int measureAndWrite(Device device, String description, int deviceIndex, boolean quick, int rounds,
            long minPerRound, long[] sizes, Path dir, PrintStream out) throws IOException {
        long t0 = System.nanoTime();
        out.println("device copy benchmark: " + description + (quick ? ", quick" : "") + ", " + rounds
                + " rounds, medians");
        List<Row> rows = measure(device, deviceIndex, sizes, rounds, minPerRound, quick ? 1 : 3);
        double seconds = (System.nanoTime() - t0) / 1e9;
        printTable(rows, out);
        write(dir, description, quick, rounds, seconds, rows);
        out.printf(Locale.ROOT, "%d figures in %.1f s, written to %s%n", rows.size(), seconds, dir.toAbsolutePath());
        return 0;
    }

    private static List<Row> measure(Device device, int index, long[] sizes, int rounds, long minPerRound, int warmup) {
        DeviceMemory memory = device.memory();
        long max = Arrays.stream(sizes).max().orElse(0);
        var rows = new ArrayList<Row>();
        if (max == 0) {
            return rows;
        }
        DeviceBuffer a = memory.allocate(index, max);
        DeviceBuffer b = memory.allocate(index, max);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pageable = arena.allocate(max, 4096);
            MemorySegment pinned = arena.allocate(max, 4096);
            for (long i = 0; i < max; i += 8) {
                pageable.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            pinned.copyFrom(pageable);
            device.pin(pinned);
            try {
                for (long size : sizes) {
                    int reps = (int) Math.max(1, Math.min(256, minPerRound / size));
                    for (String staging : List.of("pageable", "pinned")) {
                        MemorySegment host = (staging.equals("pinned") ? pinned : pageable).asSlice(0, size);
                        DeviceBuffer dev = a.slice(0, size);
                        rows.add(time(size, "HtoD", staging, rounds, reps, warmup, device, () -> memory.copyFromHost(host, dev)));
                        rows.add(time(size, "DtoH", staging, rounds, reps, warmup, device, () -> memory.copyToHost(dev, host)));
                    }
                    DeviceBuffer from = a.slice(0, size);
                    DeviceBuffer to = b.slice(0, size);
                    rows.add(time(size, "DtoD", "device", rounds, reps, warmup, device, () -> memory.copy(from, to)));
                }
            } finally {
                device.unpin(pinned);
            }
        } finally {
            memory.free(a);
            memory.free(b);
        }
        return rows;
    }

    private static Row time(long size, String direction, String staging, int rounds, int reps, int warmup,
            Device device, Runnable copy) {
        double[] micros = new double[rounds];
        for (int r = -warmup; r < rounds; r++) {
            long t = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                copy.run();
            }
            device.synchronize();
            long ns = System.nanoTime() - t;
            if (r >= 0) {
                micros[r] = ns / 1e3 / reps;
            }
        }
        double[] sorted = micros.clone();
        Arrays.sort(sorted);
        double median = rounds % 2 == 1 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
        return new Row(size, direction, staging, rounds, reps, median, sorted[0], sorted[rounds - 1]);
    }

    static String size(long bytes) {
        return bytes >= 1L << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    private static void printTable(List<Row> rows, PrintStream out) {
        out.printf(Locale.ROOT, "%-9s %-5s %-9s %5s %12s %10s%n", "size", "dir", "staging", "reps", "median us", "GB/s");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-9s %-5s %-9s %5d %12.1f %10.2f%n", size(r.size()), r.direction(), r.staging(),
                    r.reps(), r.medianMicros(), r.gbPerSecond());
        }
    }

    private static void write(Path dir, String description, boolean quick, int rounds, double seconds, List<Row> rows)
            throws IOException {
        var csv = new StringBuilder("size_bytes,direction,staging,rounds,reps,median_us,min_us,max_us,gb_per_s\n");
        var json = new StringBuilder("{\n  \"device\": ").append(json(description))
                .append(",\n  \"quick\": ").append(quick)
                .append(",\n  \"rounds\": ").append(rounds)
                .append(String.format(Locale.ROOT, ",\n  \"seconds\": %.2f", seconds))
                .append(",\n  \"rows\": [");
        String sep = "\n    ";
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT, "%d,%s,%s,%d,%d,%.3f,%.3f,%.3f,%.3f%n", r.size(), r.direction(),
                    r.staging(), r.rounds(), r.reps(), r.medianMicros(), r.minMicros(), r.maxMicros(), r.gbPerSecond()));
            json.append(sep).append(String.format(Locale.ROOT,
                    "{\"size_bytes\": %d, \"direction\": \"%s\", \"staging\": \"%s\", \"reps\": %d, "
                            + "\"median_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, \"gb_per_s\": %.3f}",
                    r.size(), r.direction(), r.staging(), r.reps(), r.medianMicros(), r.minMicros(), r.maxMicros(),
                    r.gbPerSecond()));
            sep = ",\n    ";
        }
        json.append(rows.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
        Files.writeString(dir.resolve("device-copy.csv"), csv);
        Files.writeString(dir.resolve("device-copy.json"), json);
    }

    static String json(String s) {
        var b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
