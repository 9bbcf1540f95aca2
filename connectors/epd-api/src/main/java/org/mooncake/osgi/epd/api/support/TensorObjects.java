package org.mooncake.osgi.epd.api.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import org.mooncake.osgi.epd.api.DType;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorHeader;
import org.mooncake.osgi.epd.api.TensorSpec;

/**
 * Tensor objects as the store holds them: the {@link TensorHeader}, then the payload,
 * little-endian. Payloads are copied as they lie in memory, so this runs on little-endian
 * platforms only (x86-64, aarch64): {@link #requireLittleEndian} says so at start-up elsewhere.
 */
public final class TensorObjects {
    private TensorObjects() {
    }

    /** Fails on a big-endian platform, where payloads would need swapping. */
    public static void requireLittleEndian() {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalStateException("tensor objects are little-endian; this platform is not");
        }
    }

    /** Header and payload of {@code t} in one new native segment of {@code arena}, ready to put. */
    public static MemorySegment encode(Tensor t, Arena arena) {
        MemorySegment object = arena.allocate(t.header().objectBytes(), 64);
        encodeInto(t, object);
        return object;
    }

    /** Header and payload of {@code t} into {@code object}, which is exactly the object's size. */
    public static void encodeInto(Tensor t, MemorySegment object) {
        TensorHeader h = t.header();
        if (object.byteSize() != h.objectBytes()) {
            throw new IllegalArgumentException("a tensor object of " + h.objectBytes() + " bytes, a buffer of "
                    + object.byteSize());
        }
        h.writeTo(object);
        MemorySegment.copy(t.data(), 0, object, TensorHeader.SIZE, h.dataBytes());
    }

    /**
     * Checks the object read into {@code object} ({@code objectBytes} of it hold the object) and
     * copies its payload into {@code target}, whose dtype and shape are what the reader expects.
     * Throws {@link org.mooncake.osgi.epd.api.TensorFormatException} before copying anything if
     * the header differs.
     */
    public static void decodeInto(MemorySegment object, long objectBytes, Tensor target) {
        TensorHeader h = TensorHeader.read(object);
        h.expect(target.dtype(), target.shape(), objectBytes);
        MemorySegment.copy(object, TensorHeader.SIZE, target.data(), 0, h.dataBytes());
    }

    /** A zeroed tensor of {@code spec} on the heap, over the primitive array that fits its dtype. */
    public static Tensor allocate(TensorSpec spec) {
        long elements = TensorHeader.dense(spec.dtype(), spec.shape()).dataBytes() / spec.dtype().bytes();
        int n = Math.toIntExact(elements);
        DType d = spec.dtype();
        MemorySegment data = switch (d) {
            case F32 -> MemorySegment.ofArray(new float[n]);
            case F64 -> MemorySegment.ofArray(new double[n]);
            case I32, U32 -> MemorySegment.ofArray(new int[n]);
            case I64, U64 -> MemorySegment.ofArray(new long[n]);
            case I16, U16, F16, BF16 -> MemorySegment.ofArray(new short[n]);
            case I8, U8, BOOL, FP8_E4M3FN, FP8_E5M2 -> MemorySegment.ofArray(new byte[n]);
        };
        return new Tensor(d, spec.shape(), data);
    }
}
