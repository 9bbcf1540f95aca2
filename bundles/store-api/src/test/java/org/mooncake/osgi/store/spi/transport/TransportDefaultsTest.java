package org.mooncake.osgi.store.spi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.SegmentEndpoint;

class TransportDefaultsTest {
    private static final Transport BARE = new Transport() {
        @Override
        public String protocol() {
            return "bare";
        }

        @Override
        public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
            return new SegmentEndpoint("bare", "here", segmentName);
        }

        @Override
        public void withdraw(String segmentName) {
        }

        @Override
        public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void aDefaultSegmentIsZeroedAndAlignedToAHugePageFromTwoMiB() {
        try (Arena arena = Arena.ofConfined()) {
            long big = (5L << 20) + 12345;
            MemorySegment s = BARE.allocateSegment("s", big, arena);
            assertEquals(big, s.byteSize());
            assertEquals(0, s.address() % (2L << 20));
            assertEquals(-1, s.mismatch(MemorySegment.ofArray(new byte[(int) big])), "zeroed");
            MemorySegment small = BARE.allocateSegment("t", 100_000, arena);
            assertEquals(100_000, small.byteSize());
            assertEquals(0, small.address() % 4096);
            assertEquals(-1, small.mismatch(MemorySegment.ofArray(new byte[100_000])), "zeroed");
        }
    }
}
