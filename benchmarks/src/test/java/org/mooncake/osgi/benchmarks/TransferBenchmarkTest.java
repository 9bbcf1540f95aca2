package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.util.List;

import org.junit.jupiter.api.Test;

class TransferBenchmarkTest {
    /** memcpy's baseline and the store's copies compare alike only if no buffer's alignment differs by run. */
    @Test
    void everyBufferStartsOnAPageWhateverWasAllocatedBefore() {
        try (Arena arena = Arena.ofConfined()) {
            for (long size : new long[] {1, 64, 65_536, 65_600, 1 << 20}) {
                assertEquals(0, TransferBenchmark.buffer(arena, size).address() % 4096, "size " + size);
            }
        }
    }

    /** Redis 7's CSV, as redis-benchmark printed it on this VM: each figure from its own column. */
    @Test
    void redisFiguresAreReadFromTheColumnsTheHeaderNames() {
        String csv = """
                "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
                "SET","17241.38","0.049","0.040","0.047","0.087","0.135","0.719"
                "GET","16000.00","0.052","0.041","0.050","0.090","0.140","0.800"
                """;
        List<TransferBenchmark.Result> r = TransferBenchmark.redisResults(csv, 65_536, 2000);
        assertEquals(2, r.size());
        assertEquals("put", r.get(0).op());
        assertEquals(17241.38 * 65_536 / (1 << 20), r.get(0).mibPerSecond(), 1e-6);
        assertEquals(0.047, r.get(0).p50Ms());
        assertEquals(0.135, r.get(0).p99Ms());
        assertEquals("get", r.get(1).op());
        assertEquals(0.140, r.get(1).p99Ms());
    }

    /** The table and charts show each series' median over the rounds; its operations are the rounds' sum. */
    @Test
    void mediansAreTakenPerSeriesOverTheRounds() {
        List<List<TransferBenchmark.Result>> rounds = List.of(
                List.of(new TransferBenchmark.Result("tcp", "put", 1 << 20, 1000, 2_000, 0.40, 0.9),
                        new TransferBenchmark.Result("tcp", "get", 1 << 20, 1000, 3_000, 0.30, 0.5)),
                List.of(new TransferBenchmark.Result("tcp", "put", 1 << 20, 1000, 1_000, 0.80, 1.5),
                        new TransferBenchmark.Result("tcp", "get", 1 << 20, 1000, 3_300, 0.28, 0.4)),
                List.of(new TransferBenchmark.Result("tcp", "put", 1 << 20, 1000, 2_500, 0.35, 0.7)));
        List<TransferBenchmark.Result> m = TransferBenchmark.medians(rounds);

        assertEquals(new TransferBenchmark.Result("tcp", "put", 1 << 20, 3000, 2_000, 0.40, 0.9), m.get(0));
        TransferBenchmark.Result get = m.get(1);
        assertEquals(List.of("tcp", "get", 1L << 20, 2000), List.of(get.system(), get.op(), get.size(), get.ops()));
        assertEquals(3_150, get.mibPerSecond(), 1e-9);
        assertEquals(0.29, get.p50Ms(), 1e-9);
        assertEquals(0.45, get.p99Ms(), 1e-9);
        assertEquals(2, m.size());
    }

    /** The rounds are the third argument, a whole number from 1 to 20; 3 when not given. */
    @Test
    void roundsAreReadAndChecked(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String out = dir.toString();
        assertEquals(3, TransferBenchmark.parse(new String[] {out}).roundCount());
        assertEquals(5, TransferBenchmark.parse(new String[] {out, "0.5", "5"}).roundCount());
        assertEquals("ROUNDS takes a whole number from 1 to 20, was 0",
                org.junit.jupiter.api.Assertions.assertThrows(BenchArgs.Mistake.class,
                        () -> TransferBenchmark.parse(new String[] {out, "1", "0"})).getMessage());
        assertEquals("takes [OUT_DIR] [SCALE] [ROUNDS], was given 4 arguments",
                org.junit.jupiter.api.Assertions.assertThrows(BenchArgs.Mistake.class,
                        () -> TransferBenchmark.parse(new String[] {out, "1", "3", "x"})).getMessage());
    }

    /** {@code --help} gives the usage and another option is refused, neither taken for an output directory. */
    @Test
    void anOptionIsRefusedNotTakenForTheOutputDirectory(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String usage = org.junit.jupiter.api.Assertions.assertThrows(BenchArgs.Help.class,
                () -> TransferBenchmark.parse(new String[] {"--help"})).getMessage();
        org.junit.jupiter.api.Assertions.assertTrue(usage.startsWith("usage: mooncake bench transfer"), usage);
        org.junit.jupiter.api.Assertions.assertFalse(java.nio.file.Files.exists(java.nio.file.Path.of("--help")));
        String message = org.junit.jupiter.api.Assertions.assertThrows(BenchArgs.Mistake.class,
                () -> TransferBenchmark.parse(new String[] {"--out"})).getMessage();
        org.junit.jupiter.api.Assertions.assertTrue(message.startsWith("takes [OUT_DIR] [SCALE] [ROUNDS] and no options"),
                message);
        org.junit.jupiter.api.Assertions.assertThrows(BenchArgs.Mistake.class,
                () -> TransferBenchmark.parse(new String[] {dir.toString(), "-1"}));
    }
}
