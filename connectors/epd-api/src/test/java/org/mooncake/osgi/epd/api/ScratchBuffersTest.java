package org.mooncake.osgi.epd.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.support.ScratchBuffers;
import org.mooncake.osgi.epd.api.support.TensorObjects;

class ScratchBuffersTest {

    @Test
    void aBufferGivenBackIsTakenAgainAndSizesAreExact() {
        ScratchBuffers pool = new ScratchBuffers();
        long address;
        try (ScratchBuffers.Lease a = pool.take(1_000_000)) {
            assertEquals(1_000_000, a.segment().byteSize());
            assertEquals(0, a.segment().address() % 64);
            address = a.segment().address();
            a.segment().set(ValueLayout.JAVA_BYTE, 999_999, (byte) 7);
        }
        try (ScratchBuffers.Lease b = pool.take(600_000); ScratchBuffers.Lease c = pool.take(600_000)) {
            assertEquals(address, b.segment().address(), "the same size class reuses the buffer");
            assertNotEquals(b.segment().address(), c.segment().address(), "two takers never share one");
        }
        assertThrows(IllegalArgumentException.class, () -> pool.take(2L << 30));
    }

    @Test
    void aTensorObjectWrittenIntoABufferReadsBack() {
        ScratchBuffers pool = new ScratchBuffers();
        Tensor t = Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        try (ScratchBuffers.Lease b = pool.take(t.header().objectBytes())) {
            TensorObjects.encodeInto(t, b.segment());
            Tensor back = TensorObjects.allocate(t.spec());
            TensorObjects.decodeInto(b.segment(), b.segment().byteSize(), back);
            assertEquals(t.data().mismatch(back.data()), -1);
            assertThrows(IllegalArgumentException.class, () -> TensorObjects.encodeInto(t, MemorySegment.ofArray(new byte[10])));
        }
    }
}
