package org.mooncake.osgi.epd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.function.Consumer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class TensorHeaderTest {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The golden object of docs/epd-protocol.md: f32 [2, 3] holding 0, 1, 2, 3, 4.5, -1, little-endian. */
    static byte[] goldenObject() {
        float[] values = {0, 1, 2, 3, 4.5f, -1};
        TensorHeader h = TensorHeader.dense(DType.F32, 2, 3);
        byte[] out = new byte[(int) h.objectBytes()];
        MemorySegment o = MemorySegment.ofArray(out);
        h.writeTo(o);
        for (int i = 0; i < values.length; i++) {
            o.set(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), TensorHeader.SIZE + 4L * i, values[i]);
        }
        return out;
    }

    /** The dump's bytes: each line "offset: hex bytes", as xxd -g1 prints them without the text column. */
    static byte[] parseDump(String dump) {
        StringBuilder hex = new StringBuilder();
        for (String line : dump.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                hex.append(line.substring(colon + 1).replace(" ", ""));
            }
        }
        return HexFormat.of().parseHex(hex.toString());
    }

    @Test
    void theGoldenDumpIsWhatTheCodecWritesAndReads() throws IOException {
        String dump;
        try (InputStream in = TensorHeaderTest.class.getResourceAsStream("golden-f32-2x3.hex")) {
            dump = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        byte[] golden = parseDump(dump);
        assertArrayEquals(golden, goldenObject(), "the codec's bytes changed: a format change needs a new version");
        TensorHeader h = TensorHeader.read(MemorySegment.ofArray(golden));
        assertEquals(TensorHeader.dense(DType.F32, 2, 3), h);
        assertEquals(24, h.dataBytes());
        h.expect(DType.F32, new long[] {2, 3}, golden.length);
        assertEquals(4.5f, MemorySegment.ofArray(golden).get(
                ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), TensorHeader.SIZE + 16));
        assertEquals(0x4E, golden[0] & 0xff, "the magic word 0x4D4F4F4E, little-endian");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void everyDtypeRoundTrips(DType d) {
        TensorHeader h = TensorHeader.dense(d, 4, 5, 6);
        assertEquals(h, TensorHeader.read(MemorySegment.ofArray(h.toBytes())));
        assertEquals(120L * d.bytes(), h.dataBytes());
    }

    private static void assertRefused(String why, Consumer<MemorySegment> damage) {
        byte[] b = goldenObject();
        MemorySegment s = MemorySegment.ofArray(b);
        damage.accept(s);
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> TensorHeader.read(s));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void aDamagedHeaderIsRefusedSayingWhat() {
        assertRefused("magic", s -> s.set(I32, 0, 0x12345678));
        assertRefused("version", s -> s.set(ValueLayout.JAVA_BYTE, 4, (byte) 2));
        assertRefused("unknown dtype", s -> s.set(I32, 8, 99));
        assertRefused("ndim", s -> s.set(I32, 12, 9));
        assertRefused("layout kind", s -> s.set(I32, 16, 1));
        assertRefused("flags", s -> s.set(I32, 20, 4));
        assertRefused("data offset", s -> s.set(I64, 24, 512));
        assertRefused("data bytes", s -> s.set(I64, 32, 28));
        assertRefused("past ndim", s -> s.set(I64, 40 + 8 * 2, 7));
        assertRefused("reserved", s -> s.set(ValueLayout.JAVA_BYTE, 200, (byte) 1));
        TensorFormatException e = assertThrows(TensorFormatException.class,
                () -> TensorHeader.read(MemorySegment.ofArray(goldenObject()).asSlice(0, 100)));
        assertTrue(e.getMessage().contains("shorter"), e.getMessage());
    }

    @Test
    void aLoadChecksDtypeShapeAndSize() {
        TensorHeader h = TensorHeader.read(MemorySegment.ofArray(goldenObject()));
        assertThrows(TensorFormatException.class, () -> h.expect(DType.BF16, new long[] {2, 3}, 328));
        assertThrows(TensorFormatException.class, () -> h.expect(DType.F32, new long[] {3, 2}, 328));
        assertThrows(TensorFormatException.class, () -> h.expect(DType.F32, new long[] {2, 3}, 329));
        h.expect(DType.F32, new long[] {2, 3}, 328);
    }

    @Test
    void anUnshardedTensorsLocalShapeIsItsShapeAndASharedOneIsKept() {
        byte[] b = TensorHeader.dense(DType.F16, 8, 16).toBytes();
        assertEquals(8, MemorySegment.ofArray(b).get(I64, 104));
        assertEquals(-1, MemorySegment.ofArray(b).get(I64, 104 + 16));
        TensorHeader sharded = new TensorHeader(DType.F16, new long[] {8, 16}, new long[] {8, 4}, 0, 0, 64);
        assertEquals(sharded, TensorHeader.read(MemorySegment.ofArray(sharded.toBytes())));
        assertThrows(TensorFormatException.class, () -> sharded.expect(DType.F16, new long[] {8, 16}, 304 + 64));
    }
}
