package org.mooncake.osgi.epd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * The tensor header decoder on any bytes (docs/fuzzing.md). A header is either refused with a
 * {@link TensorFormatException} or read, and a header read is written back to exactly the bytes it
 * came from (version 1 has no field a reader ignores). Any other exception is a finding. Inputs:
 * {@code TensorHeaderFuzzTestInputs/anyBytes/} (the golden object of docs/epd-protocol.md, and
 * the inputs findings were made of).
 */
class TensorHeaderFuzzTest {
    @FuzzTest
    void anyBytes(byte[] data) {
        TensorHeader header;
        try {
            header = TensorHeader.read(MemorySegment.ofArray(data));
        } catch (TensorFormatException refused) {
            return;
        }
        assertTrue(header.dataBytes() >= 0 && header.objectBytes() > header.dataBytes(), "sizes are not wrapped: " + header);
        assertArrayEquals(Arrays.copyOf(data, TensorHeader.SIZE), header.toBytes(), "a header read writes back as it came");
        try {
            header.expect(header.dtype(), header.shape(), data.length);
        } catch (TensorFormatException refused) {
            // an object whose size is not the header's and its payload's
        }
    }
}
