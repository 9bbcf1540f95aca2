package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Moves bytes between local memory and segments owned by any process, one-sided. Register as an
 * OSGi service with {@link #PROTOCOL_PROPERTY}; clients pick the transport named by the target
 * segment's endpoint.
 *
 * <p>Implementations are thread-safe. A batch completes when every request has a status; a
 * failed request never leaves a partially written object readable, because the master only
 * publishes an object after the writer's put-end.
 */
@ConsumerType
public interface Transport {
    String PROTOCOL_PROPERTY = "transport.protocol";

    /** {@link #cost} of a copy within this process. */
    int COST_IN_PROCESS = 0;
    /** {@link #cost} of memory shared between processes of one host. */
    int COST_SHARED_MEMORY = 100;
    /** {@link #cost} of one-sided RDMA over a network (InfiniBand, RoCE). */
    int COST_RDMA = 200;
    /** {@link #cost} of a byte stream over a network (TCP); the default. */
    int COST_NETWORK = 300;

    String protocol();

    /**
     * Memory for a segment this process will expose. Transports that need special memory
     * (shared files, registered or device memory) allocate it; the default is zeroed off-heap
     * memory freed with {@code arena}, aligned to 2 MiB from that size (4 KiB below). The default
     * does not ask for huge pages (it was {@code HugePages} before 3.0): a transport that wants
     * segments on transparent huge pages overrides this with HugePages.allocate from
     * org.mooncake.osgi.store.memory.
     */
    default MemorySegment allocateSegment(String segmentName, long sizeBytes, Arena arena) {
        return arena.allocate(sizeBytes, sizeBytes >= 2L << 20 ? 2L << 20 : 4096);
    }

    /** Whether this transport can reach that endpoint from here (same JVM, same host, any host). */
    default boolean canReach(SegmentEndpoint endpoint) {
        return protocol().equals(endpoint.protocol());
    }

    /**
     * What moving bytes to or from that endpoint through this transport costs from here: lower is
     * cheaper (since 3.0). A client reaches a segment through the cheapest endpoint it can (ties go
     * to the segment's own order) and lists its own segments' endpoints cheapest first, so a new
     * transport takes its place by its answer here, not by its name. The {@code COST_} levels are
     * the scale; answer between them where measured (ucx over TCP answers above
     * {@link #COST_NETWORK}, being slower than the tcp transport). Called on the data path: answer
     * from what is known already, never by asking the peer.
     */
    default int cost(SegmentEndpoint endpoint) {
        return COST_NETWORK;
    }

    /** Makes a local segment a target of one-sided operations; returns how peers reach it. */
    SegmentEndpoint expose(String segmentName, MemorySegment memory);

    /**
     * {@link #expose(String, MemorySegment)}, for a segment whose master signs {@link DataGrant}s
     * with {@code grantKey} (since 3.1). A transport that serves other processes through its own
     * code on this side (tcp) refuses, from then on, every request without a grant that
     * {@link DataGrant#check permits} it; one that cannot see requests (one-sided RDMA) or serves
     * only this process or this user's processes ignores the key, the default.
     */
    default SegmentEndpoint expose(String segmentName, MemorySegment memory, GrantKey grantKey) {
        return expose(segmentName, memory);
    }

    /**
     * Whether this transport can serve a segment whose bytes live in memory of {@code kind}
     * ({@link #exposeDevice}), now (since 3.0). A transport that moves host memory only (tcp, shm)
     * answers no, the default; one that addresses device memory (local with a
     * {@link org.mooncake.osgi.store.spi.device.DeviceMemory} of that kind bound, ucx built with
     * CUDA) yes. Asked when a device segment is mounted and whenever a transport is bound.
     */
    default boolean servesDeviceMemory(MemoryKind kind) {
        return false;
    }

    /**
     * Makes a segment in device memory a target of one-sided operations; returns how peers reach
     * it (since 3.0). Requests against it move the bytes between the request's host
     * {@code local} memory and the device; a checksum asked for is computed on the host side of
     * the copy (the host memory after a READ, the source before a WRITE). Called only when
     * {@link #servesDeviceMemory} answered yes for its kind.
     *
     * @throws UnsupportedOperationException where this transport cannot address device memory (the default)
     */
    default SegmentEndpoint exposeDevice(String segmentName, DeviceBuffer memory) {
        throw new UnsupportedOperationException("the " + protocol() + " transport cannot serve " + memory.kind()
                + " memory (segment " + segmentName + ")");
    }

    /** Stops serving a segment; later requests against it fail. */
    void withdraw(String segmentName);

    /**
     * Whether a request that asks for its checksum ({@link TransferRequest#checksum}) gets it from
     * the same pass as its copy, reading no byte twice (since 1.2). A client then asks even for a
     * large put, where it would otherwise checksum the source on another thread during the
     * transfer. The default is no: a transport that checksums at all (copy transports) may still
     * need a pass of its own.
     */
    default boolean checksumsInOnePass() {
        return false;
    }

    /** Pins local memory for transfers (memory registration); a no-op where none is needed. */
    default void registerLocal(MemorySegment memory) {
    }

    default void unregisterLocal(MemorySegment memory) {
    }

    /**
     * Runs a batch; the stage completes with one status per request, in order. Local memory of a
     * confined arena must be moved on the calling thread, before this returns.
     */
    CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch);
}
