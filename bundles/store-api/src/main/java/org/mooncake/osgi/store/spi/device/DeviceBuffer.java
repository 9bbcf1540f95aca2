package org.mooncake.osgi.store.spi.device;

import java.util.Objects;

/**
 * A range of memory on a device: an opaque address and its size, nothing to dereference. It
 * holds no {@link java.lang.foreign.MemorySegment} and never will: a device address is valid only
 * to the driver that gave it ({@link DeviceMemory}), which moves its bytes.
 *
 * @param kind where the memory is
 * @param device the device's index in its {@link DeviceMemory} ({@code 0 .. deviceCount()-1})
 * @param address the first byte's address, as the driver gave it (unsigned; a {@code CUdeviceptr}
 *        for {@link MemoryKind#CUDA_DEVICE}); never 0 for a device kind
 * @param byteSize the number of bytes, 0 or more; the end, {@code address + byteSize}, is an address
 *        (below 2^64, unsigned)
 */
public record DeviceBuffer(MemoryKind kind, int device, long address, long byteSize) {

    public DeviceBuffer {
        Objects.requireNonNull(kind, "kind");
        if (device < 0) {
            throw new IllegalArgumentException("device index " + device + " is negative");
        }
        if (byteSize < 0) {
            throw new IllegalArgumentException("byteSize " + byteSize + " is negative");
        }
        if (kind.isDevice() && address == 0) {
            throw new IllegalArgumentException("a " + kind + " buffer cannot be at address 0");
        }
        if (Long.compareUnsigned(address, -1L - byteSize) > 0) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " + " + byteSize
                    + " bytes wraps around the address space");
        }
    }

    /**
     * The {@code length} bytes from {@code offset}, on the same device.
     *
     * @throws IndexOutOfBoundsException unless {@code 0 <= offset}, {@code 0 <= length} and
     *         {@code offset + length <= byteSize()}
     */
    public DeviceBuffer slice(long offset, long length) {
        Objects.checkFromIndexSize(offset, length, byteSize);
        return new DeviceBuffer(kind, device, address + offset, length);
    }

    /** The bytes from {@code offset} to the end. */
    public DeviceBuffer slice(long offset) {
        return slice(offset, byteSize - offset); // a negative or too large offset gives a bad length: refused
    }

    /** Whether {@code other} lies within this buffer (same kind and device). */
    public boolean contains(DeviceBuffer other) {
        return other.kind == kind && other.device == device
                && Long.compareUnsigned(other.address, address) >= 0
                && Long.compareUnsigned(other.address - address, byteSize) <= 0
                && other.byteSize <= byteSize - (other.address - address);
    }

    /** Whether this buffer and {@code other} share a byte. */
    public boolean overlaps(DeviceBuffer other) {
        return other.kind == kind && other.device == device && byteSize > 0 && other.byteSize > 0
                && Long.compareUnsigned(address, other.address + other.byteSize) < 0
                && Long.compareUnsigned(other.address, address + byteSize) < 0;
    }

    @Override
    public String toString() {
        return kind + "[" + device + "]@0x" + Long.toHexString(address) + "+" + byteSize;
    }
}
