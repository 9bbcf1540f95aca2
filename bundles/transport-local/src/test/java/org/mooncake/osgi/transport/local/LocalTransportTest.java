package org.mooncake.osgi.transport.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

class LocalTransportTest {
    private final LocalTransport t = new LocalTransport();

    private TransferStatus one(TransferOp op, MemorySegment local, SegmentEndpoint ep, long offset) {
        return t.submit(List.of(new TransferRequest(op, local, ep, offset))).toCompletableFuture().join().getFirst();
    }

    @Test
    void writesAndReadsRoundTrip() {
        try (Arena arena = Arena.ofConfined()) {
            SegmentEndpoint ep = t.expose("s", arena.allocate(1024));
            byte[] data = {1, 2, 3, 4, 5};
            assertTrue(one(TransferOp.WRITE, MemorySegment.ofArray(data), ep, 100).completed());
            byte[] back = new byte[5];
            assertTrue(one(TransferOp.READ, MemorySegment.ofArray(back), ep, 100).completed());
            assertArrayEquals(data, back);
        }
    }

    @Test
    void outOfBoundsWithdrawnAndClosedSegmentsFailWithAStatus() {
        Arena arena = Arena.ofShared();
        SegmentEndpoint ep = t.expose("s", arena.allocate(64));
        assertFalse(one(TransferOp.WRITE, MemorySegment.ofArray(new byte[65]), ep, 0).completed());
        assertFalse(one(TransferOp.WRITE, MemorySegment.ofArray(new byte[8]), ep, 60).completed());
        arena.close();
        assertFalse(one(TransferOp.WRITE, MemorySegment.ofArray(new byte[8]), ep, 0).completed());
        t.withdraw("s");
        assertFalse(one(TransferOp.READ, MemorySegment.ofArray(new byte[8]), ep, 0).completed());
    }
}
