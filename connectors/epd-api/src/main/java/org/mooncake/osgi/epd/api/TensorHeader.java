package org.mooncake.osgi.epd.api;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The 304-byte little-endian header of a Mooncake tensor object; the payload follows it
 * contiguously. Layout (byte offsets):
 *
 * <pre>
 *   0  u32 magic 0x4D4F4F4E ("MOON" read as a big-endian word; bytes 4E 4F 4F 4D)
 *   4  u16 version (1)           6  u16 header size (304)
 *   8  i32 dtype code ({@link DType})
 *  12  i32 ndim (1 to 8)
 *  16  u32 layout kind          20  u32 flags
 *  24  u64 data offset (304)    32  u64 data bytes
 *  40  8 x i64 shape            (dimensions past ndim are -1)
 * 104  8 x i64 local shape      (this rank's part; equal to shape when not sharded)
 * 168  2 x u32 reserved, zero
 * 176  128 bytes axes, zero
 * </pre>
 *
 * What the reference leaves open, fixed here (docs/epd-protocol.md has a golden dump):
 * <ul>
 * <li>layout kind 0 ({@link #LAYOUT_DENSE}): dense, row-major, contiguous; no other kind is
 * defined, and a reader refuses one it does not know;</li>
 * <li>flags: none are defined in version 1; a reader refuses any bit set;</li>
 * <li>an unsharded tensor's local shape is its shape (dimensions past ndim -1 too);</li>
 * <li>the reserved words and the axes are written zero and a reader refuses anything else, so a
 * format that uses them must raise the version.</li>
 * </ul>
 * Immutable.
 */
public record TensorHeader(DType dtype, long[] shape, long[] localShape, int layoutKind, int flags, long dataBytes) {
    public static final int SIZE = 304;
    public static final int MAGIC = 0x4D4F4F4E;
    public static final int VERSION = 1;
    public static final int MAX_DIMS = 8;
    public static final int LAYOUT_DENSE = 0;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SHAPE_AT = 40;
    private static final int LOCAL_SHAPE_AT = 104;
    private static final int RESERVED_AT = 168;

    public TensorHeader {
        if (dtype == null || shape == null || localShape == null) {
            throw new TensorFormatException("dtype, shape and local shape are required");
        }
        if (shape.length < 1 || shape.length > MAX_DIMS || localShape.length != shape.length) {
            throw new TensorFormatException("a tensor has 1 to " + MAX_DIMS + " dimensions and a local shape of as many");
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0 || localShape[i] < 0 || localShape[i] > shape[i]) {
                throw new TensorFormatException("bad dimension " + i + ": shape " + Arrays.toString(shape) + ", local "
                        + Arrays.toString(localShape));
            }
        }
        if (layoutKind != LAYOUT_DENSE) {
            throw new TensorFormatException("unknown layout kind " + layoutKind + " (version 1 knows 0, dense)");
        }
        if (flags != 0) {
            throw new TensorFormatException("flags 0x" + Integer.toHexString(flags) + " set (version 1 defines none)");
        }
        if (dataBytes != payloadBytes(dtype, localShape)) {
            throw new TensorFormatException("data bytes " + dataBytes + " do not match local shape "
                    + Arrays.toString(localShape) + " of " + dtype.keyName());
        }
        shape = shape.clone();
        localShape = localShape.clone();
    }

    /** The header of an unsharded dense tensor. */
    public static TensorHeader dense(DType dtype, long... shape) {
        return new TensorHeader(dtype, shape, shape, LAYOUT_DENSE, 0, payloadBytes(dtype, shape));
    }

    /** The payload's size; a shape of more than {@code Long.MAX_VALUE - SIZE} bytes is refused, not wrapped. */
    private static long payloadBytes(DType dtype, long[] dims) {
        try {
            long n = dtype.bytes();
            for (long d : dims) {
                n = Math.multiplyExact(n, d);
            }
            Math.addExact(n, SIZE);
            return n;
        } catch (ArithmeticException e) {
            throw new TensorFormatException("shape " + Arrays.toString(dims) + " of " + dtype.keyName()
                    + " holds more bytes than an object can");
        }
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    @Override
    public long[] localShape() {
        return localShape.clone();
    }

    /** Header and payload together. */
    public long objectBytes() {
        return SIZE + dataBytes;
    }

    /** Writes the header into the first {@value #SIZE} bytes of {@code out}. */
    public void writeTo(MemorySegment out) {
        if (out.byteSize() < SIZE) {
            throw new IllegalArgumentException("a tensor header needs " + SIZE + " bytes, the target has " + out.byteSize());
        }
        out.asSlice(0, SIZE).fill((byte) 0);
        out.set(I32, 0, MAGIC);
        out.set(I16, 4, (short) VERSION);
        out.set(I16, 6, (short) SIZE);
        out.set(I32, 8, dtype.code());
        out.set(I32, 12, shape.length);
        out.set(I32, 16, layoutKind);
        out.set(I32, 20, flags);
        out.set(I64, 24, SIZE);
        out.set(I64, 32, dataBytes);
        for (int i = 0; i < MAX_DIMS; i++) {
            out.set(I64, SHAPE_AT + 8L * i, i < shape.length ? shape[i] : -1);
            out.set(I64, LOCAL_SHAPE_AT + 8L * i, i < localShape.length ? localShape[i] : -1);
        }
    }

    /** The header as {@value #SIZE} bytes. */
    public byte[] toBytes() {
        byte[] b = new byte[SIZE];
        writeTo(MemorySegment.ofArray(b));
        return b;
    }

    /**
     * Reads and validates the header at the start of {@code in}: magic, version, header size,
     * dtype, ndim, dimensions, layout, flags, data offset and size, reserved bytes. Throws
     * {@link TensorFormatException} saying what is wrong.
     */
    public static TensorHeader read(MemorySegment in) {
        if (in.byteSize() < SIZE) {
            throw new TensorFormatException("object of " + in.byteSize() + " bytes is shorter than a tensor header");
        }
        int magic = in.get(I32, 0);
        if (magic != MAGIC) {
            throw new TensorFormatException("not a tensor object: magic 0x" + Integer.toHexString(magic));
        }
        int version = Short.toUnsignedInt(in.get(I16, 4));
        int size = Short.toUnsignedInt(in.get(I16, 6));
        if (version != VERSION || size != SIZE) {
            throw new TensorFormatException("tensor header version " + version + " of " + size
                    + " bytes; this reader knows version " + VERSION + " of " + SIZE);
        }
        DType dtype;
        try {
            dtype = DType.ofCode(in.get(I32, 8));
        } catch (IllegalArgumentException e) {
            throw new TensorFormatException(e.getMessage());
        }
        int ndim = in.get(I32, 12);
        if (ndim < 1 || ndim > MAX_DIMS) {
            throw new TensorFormatException("ndim " + ndim + " is not 1 to " + MAX_DIMS);
        }
        long offset = in.get(I64, 24);
        if (offset != SIZE) {
            throw new TensorFormatException("data offset " + offset + " (the payload follows the header, at " + SIZE + ")");
        }
        long[] shape = new long[ndim];
        long[] local = new long[ndim];
        for (int i = 0; i < MAX_DIMS; i++) {
            long d = in.get(I64, SHAPE_AT + 8L * i);
            long l = in.get(I64, LOCAL_SHAPE_AT + 8L * i);
            if (i < ndim) {
                shape[i] = d;
                local[i] = l;
            } else if (d != -1 || l != -1) {
                throw new TensorFormatException("dimension " + i + " past ndim " + ndim + " is not -1");
            }
        }
        for (long at = RESERVED_AT; at < SIZE; at += 8) {
            if (in.get(I64, at) != 0) {
                throw new TensorFormatException("reserved header bytes at " + at + " are not zero");
            }
        }
        return new TensorHeader(dtype, shape, local, in.get(I32, 16), in.get(I32, 20), in.get(I64, 32));
    }

    /**
     * Checks that this header describes what the reader expects and that the object holds exactly
     * header and payload; throws {@link TensorFormatException} naming the difference.
     */
    public void expect(DType expectedDtype, long[] expectedShape, long objectBytes) {
        if (dtype != expectedDtype) {
            throw new TensorFormatException("dtype " + dtype.keyName() + ", expected " + expectedDtype.keyName());
        }
        if (!Arrays.equals(shape, expectedShape) || !Arrays.equals(localShape, expectedShape)) {
            throw new TensorFormatException("shape " + Arrays.toString(shape) + " (local " + Arrays.toString(localShape)
                    + "), expected " + Arrays.toString(expectedShape));
        }
        if (objectBytes != objectBytes()) {
            throw new TensorFormatException("object of " + objectBytes + " bytes; its header says " + objectBytes());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorHeader h && h.dtype == dtype && Arrays.equals(h.shape, shape)
                && Arrays.equals(h.localShape, localShape) && h.layoutKind == layoutKind && h.flags == flags
                && h.dataBytes == dataBytes;
    }

    @Override
    public int hashCode() {
        return dtype.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return dtype.keyName() + Arrays.toString(shape) + (Arrays.equals(shape, localShape) ? ""
                : " local " + Arrays.toString(localShape)) + ", " + dataBytes + " bytes";
    }
}
