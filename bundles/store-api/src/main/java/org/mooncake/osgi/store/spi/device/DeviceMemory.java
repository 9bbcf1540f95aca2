package org.mooncake.osgi.store.spi.device;

import java.lang.foreign.MemorySegment;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Allocates and moves device memory: a service registered by a device bundle only where its
 * driver works (no GPU, no service), one per kind of device. Device memory is never dereferenced
 * by Java; its bytes move only through these copies.
 *
 * <p>How a store client uses it: a transport that cannot address device memory (tcp, shm, ucx
 * without CUDA) moves host memory only, so a device-resident payload is staged: a put copies it
 * to a host segment with {@link #copyToHost} and puts that segment; a get reads into a host segment
 * and copies it up with {@link #copyFromHost}. Checksums of a device-resident payload are computed
 * on the host staging copy, the same bytes the transport moves, so they equal those of the same
 * payload put from the host.
 *
 * <p>Every method is thread-safe; copies are synchronous (the bytes have arrived when the method
 * returns). A driver failure is a {@link DeviceMemoryException} naming the driver's error; a
 * caller's mistake (a size mismatch, a buffer this service did not allocate, an index out of range)
 * is an {@link IllegalArgumentException} or {@link IndexOutOfBoundsException} raised before the
 * driver is called. Freeing a buffer while a copy on it is in progress on another thread is the
 * caller's error, as in C.
 *
 * <p>It is a {@code ProviderType}: device bundles implement it, everybody else calls it, so a
 * method added in a minor version breaks only the implementers.
 */
@ProviderType
public interface DeviceMemory {

    /** Service property: the {@link MemoryKind} name of the service's memory. */
    String KIND_PROPERTY = "mooncake.device.kind";
    /** Service property: the number of devices the service serves (an {@code Integer}). */
    String COUNT_PROPERTY = "mooncake.device.count";

    /** The kind of memory this service allocates. */
    MemoryKind kind();

    /** How many devices it serves, at least 1: device indexes are {@code 0 .. deviceCount()-1}. */
    int deviceCount();

    /**
     * {@code bytes} of new, uninitialized memory on {@code device}.
     *
     * @throws IllegalArgumentException if {@code bytes <= 0} or the device index is out of range
     * @throws DeviceMemoryException if the driver refuses (out of memory, a lost device)
     */
    DeviceBuffer allocate(int device, long bytes);

    /**
     * Returns memory from {@link #allocate}: the very buffer it returned, not a slice of it.
     *
     * @throws IllegalArgumentException if this service did not allocate it or it is freed already
     */
    void free(DeviceBuffer buffer);

    /**
     * Copies all of {@code source} into {@code hostTarget}. The sizes must be equal (slice the
     * larger); the target may be native or on the heap, but not read-only.
     *
     * @throws IllegalArgumentException if the sizes differ, the target is read-only or the source
     *         is not within memory this service allocated and has not freed
     */
    void copyToHost(DeviceBuffer source, MemorySegment hostTarget);

    /**
     * Copies all of {@code hostSource} into {@code target}; the sizes must be equal.
     *
     * @throws IllegalArgumentException as {@link #copyToHost}
     */
    void copyFromHost(MemorySegment hostSource, DeviceBuffer target);

    /**
     * Copies all of {@code source} into {@code target}, device to device (the same device or two
     * of this service's). The sizes must be equal and the two must not overlap.
     *
     * @throws IllegalArgumentException if the sizes differ, they overlap or either is not within
     *         memory this service allocated
     */
    void copy(DeviceBuffer source, DeviceBuffer target);

    /** For operators: the driver and its version, each device's name and memory. */
    String describe();
}
