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
}
