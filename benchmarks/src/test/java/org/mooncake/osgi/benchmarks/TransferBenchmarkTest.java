package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;

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
}
