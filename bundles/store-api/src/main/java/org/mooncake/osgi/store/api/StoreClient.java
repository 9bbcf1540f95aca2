package org.mooncake.osgi.store.api;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The store as an application sees it, mirroring Mooncake's {@code MooncakeDistributedStore}.
 * Every call is scoped to {@link #tenant()}. Failures throw {@link StoreException}; batch calls
 * report one {@link OpResult} per key instead, in input order.
 *
 * <p>Thread-safe: any thread may call any method.
 */
@ProviderType
public interface StoreClient {

    /** The tenant every key of this client belongs to. */
    String tenant();

    /** True while the client can reach its master and its segments are mounted. */
    boolean isHealthy();

    /** What this client has moved, one entry per transport protocol it has used, since it started. */
    List<TransferStats> transferStats();

    // ---- copy-in / copy-out ----

    /**
     * Stores a new object. Fails with OBJECT_ALREADY_EXISTS if a complete object has the key, and
     * with OBJECT_BEING_WRITTEN if another put of it is in progress: a writer that only wants the
     * object stored (an idempotent save) treats the first as done and the second as someone
     * else's save under way.
     */
    void put(String key, byte[] value, ReplicateConfig config);

    default void put(String key, byte[] value) {
        put(key, value, ReplicateConfig.DEFAULT);
    }

    /** Stores or replaces an object; readers see the old or the new bytes, never a mix. */
    void upsert(String key, byte[] value, ReplicateConfig config);

    /** The object's bytes; OBJECT_NOT_FOUND if absent or not yet readable. */
    byte[] get(String key);

    /** The object's size in bytes. */
    long getSize(String key);

    /** Whether a readable object has this key (grants a read lease, as upstream does). */
    boolean exists(String key);

    /** Removes an object; a leased one only with {@code force}. */
    void remove(String key, boolean force);

    /** Removes every object whose key fully matches the regex; returns how many. */
    int removeByRegex(String regex, boolean force);

    /** Removes every object of this tenant; returns how many. */
    int removeAll(boolean force);

    // ---- batches ----

    List<OpResult<Void>> putBatch(Map<String, byte[]> values, ReplicateConfig config);

    List<OpResult<Void>> upsertBatch(Map<String, byte[]> values, ReplicateConfig config);

    List<OpResult<byte[]>> getBatch(List<String> keys);

    List<OpResult<Boolean>> existsBatch(List<String> keys);

    List<OpResult<Void>> removeBatch(List<String> keys, boolean force);

    // ---- zero copy ----

    /** Registers memory that later put-from / get-into calls will use (pins it for RDMA-like transports). */
    void registerBuffer(MemorySegment buffer);

    void unregisterBuffer(MemorySegment buffer);

    /** Stores {@code source}'s bytes without an intermediate copy. */
    void putFrom(String key, MemorySegment source, ReplicateConfig config);

    void upsertFrom(String key, MemorySegment source, ReplicateConfig config);

    /** Reads the object into {@code target}; returns its size. BUFFER_TOO_SMALL if it does not fit. */
    long getInto(String key, MemorySegment target);

    /**
     * Copies pieces of an object into {@code target}; returns the bytes copied. Only what the
     * ranges need is moved: an object larger than one checksum chunk (the writer's {@code
     * checksum.chunk.bytes}, recorded at put) is read chunk by chunk, and just the chunks the
     * ranges touch travel. Each chunk moved is verified against its checksum recorded at put
     * before any byte reaches {@code target} (so a reader can check a tensor's header without
     * moving its payload, and never sees corrupt bytes); an object written as one chunk is moved
     * and verified whole. Ranges outside the object or the target are INVALID_PARAMS.
     */
    long getIntoRanges(String key, List<RangeCopy> ranges, MemorySegment target);

    List<OpResult<Void>> putFromBatch(Map<String, MemorySegment> sources, ReplicateConfig config);

    /** Reads many objects, each into its target; every lease is taken in one master call. */
    List<OpResult<Long>> getIntoBatch(Map<String, MemorySegment> targets);

    /**
     * What each key holds now, in one master call, granting no lease and counting no hit or
     * miss: READABLE, WRITING or ABSENT (see {@link ObjectState} for what that promises). One
     * result per key, in input order; an invalid key fails alone. Since 1.3.
     */
    List<OpResult<ObjectState>> lookupBatch(List<String> keys);

    // ---- device memory (since 1.4) ----

    /**
     * Registers device memory that later put-from-device / get-into-device calls will use; the
     * buffer's {@link DeviceBuffer#kind() memory kind} says who moves its bytes. The client checks
     * that a {@link org.mooncake.osgi.store.spi.device.DeviceMemory} service of that kind is bound
     * (INVALID_PARAMS naming bundle {@code org.mooncake.osgi.device.cuda} and the NVIDIA driver
     * where none is) and that the device index is one it serves. Registration is optional: an
     * unregistered device buffer is moved the same way (through the client's host staging
     * buffers; no transport addresses device memory directly yet). Since 1.4.
     */
    void registerDeviceBuffer(DeviceBuffer buffer);

    /** Forgets a registration; a buffer never registered is ignored. Since 1.4. */
    void unregisterDeviceBuffer(DeviceBuffer buffer);

    /**
     * Stores the bytes of device memory as a new object, as {@link #putFrom} does for host memory.
     * Java never dereferences the device pointer: the bytes are copied to a host staging buffer of
     * the client's by the {@link org.mooncake.osgi.store.spi.device.DeviceMemory} of the buffer's
     * kind and moved from there, in pieces for an object larger than the staging buffer; the
     * object's checksum is computed on that host copy. INVALID_PARAMS where no DeviceMemory of
     * the kind is bound. Since 1.4.
     */
    void putFromDevice(String key, DeviceBuffer source, ReplicateConfig config);

    /** Stores or replaces an object from device memory ({@link #putFromDevice}, {@link #upsert}). Since 1.4. */
    void upsertFromDevice(String key, DeviceBuffer source, ReplicateConfig config);

    /**
     * Reads the object into device memory; returns its size. BUFFER_TOO_SMALL if it does not fit.
     * The bytes land in a host staging buffer, are verified against the object's checksum there,
     * and only then are copied up: a replica that fails its checksum never reaches {@code target}
     * (an object larger than the staging buffer is moved in pieces, each verified before its copy
     * up, so a failed read may have written the pieces before the bad one). Since 1.4.
     */
    long getIntoDevice(String key, DeviceBuffer target);

    // ---- segments ----

    /** Contributes {@code memory} to the store as a new segment; returns its name. */
    String mountSegment(MemorySegment memory);

    /**
     * Contributes device memory to the store as a new segment; returns its name. Its bytes stay
     * in device memory: only transports that can address memory of its kind
     * ({@link org.mooncake.osgi.store.spi.transport.Transport#servesDeviceMemory}) serve it, and
     * the master records the segment's {@link org.mooncake.osgi.store.spi.device.MemoryKind}.
     * Fails (INVALID_PARAMS) when no transport bound here serves that kind, naming those that
     * would. The memory stays the caller's: free it only after {@link #unmountSegment}. Since 1.4.
     */
    String mountDeviceSegment(DeviceBuffer memory);

    /** Withdraws a mounted segment; objects whose last replica lived there disappear. */
    void unmountSegment(String segmentName);
}
