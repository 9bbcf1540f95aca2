package org.mooncake.osgi.epd.api;

import java.util.Arrays;
import java.util.Objects;

/** What a consumer expects a stored tensor to be: every load is checked against it. */
public record TensorSpec(DType dtype, long[] shape) {
    public TensorSpec {
        Objects.requireNonNull(dtype, "dtype");
        shape = shape.clone();
        TensorHeader.dense(dtype, shape); // validates the dimensions
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** Header and payload. */
    public long objectBytes() {
        return TensorHeader.dense(dtype, shape).objectBytes();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorSpec s && s.dtype == dtype && Arrays.equals(s.shape, shape);
    }

    @Override
    public int hashCode() {
        return dtype.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return dtype.keyName() + Arrays.toString(shape);
    }
}
