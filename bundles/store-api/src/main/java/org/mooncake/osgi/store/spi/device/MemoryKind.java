package org.mooncake.osgi.store.spi.device;

/** Where the bytes of a {@link DeviceBuffer} live, and so who may touch them. */
public enum MemoryKind {
    /**
     * Ordinary host memory (RAM) that the CPU addresses: the address of a {@link DeviceBuffer} of
     * this kind is a native host pointer.
     */
    HOST,
    /**
     * Memory on an NVIDIA GPU, allocated through the CUDA driver: the address is a
     * {@code CUdeviceptr}. Only the driver moves these bytes (copies through a
     * {@link DeviceMemory}); Java never dereferences such an address. Wrapping a device pointer in
     * a {@link java.lang.foreign.MemorySegment} and touching it reads or writes an address that is
     * not mapped on the host (or is mapped to something else): the JVM crashes.
     */
    CUDA_DEVICE;

    /** Whether addresses of this kind are not host memory (never to be dereferenced by Java). */
    public boolean isDevice() {
        return this != HOST;
    }
}
