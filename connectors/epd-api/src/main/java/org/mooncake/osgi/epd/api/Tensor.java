package org.mooncake.osgi.epd.api;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A dense, row-major tensor: its element type, shape and bytes (heap or native memory, in the
 * platform's byte order; the store moves the bytes as they are). The data is shared, not copied.
 */
public record Tensor(DType dtype, long[] shape, MemorySegment data) {
    public Tensor {
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(data, "data");
        shape = shape.clone();
        long bytes = TensorHeader.dense(dtype, shape).dataBytes();
        if (data.byteSize() != bytes) {
            throw new IllegalArgumentException(
                    "tensor " + dtype.keyName() + Arrays.toString(shape) + " needs " + bytes + " bytes, has " + data.byteSize());
        }
    }

    /** An f32 tensor over a float array. */
    public static Tensor ofFloats(float[] values, long... shape) {
        return new Tensor(DType.F32, shape, MemorySegment.ofArray(values));
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    public TensorSpec spec() {
        return new TensorSpec(dtype, shape);
    }

    /** The header this tensor is stored under. */
    public TensorHeader header() {
        return TensorHeader.dense(dtype, shape);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tensor t && t.dtype == dtype && Arrays.equals(t.shape, shape) && t.data.equals(data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dtype, Arrays.hashCode(shape), data);
    }
}
