package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentStats;

/**
 * A mounted segment and its allocator, whatever memory its bytes live in (host or a device's:
 * {@link SegmentDescriptor#memoryKind()}): the master only hands out offsets, so a device segment
 * is placed, filled, counted toward capacity and the eviction watermark, and evicted from exactly
 * as a host segment is. Once {@link #retire() retired} it takes no new blocks.
 * Its endpoints may change while it is mounted ({@link #reachVia}); readers see them whole.
 */
final class Segment {
    volatile SegmentDescriptor descriptor;
    private final OffsetAllocator allocator;
    private final EvictableBlocks evictable = new EvictableBlocks();
    private volatile boolean retired;

    Segment(SegmentDescriptor descriptor) {
        this.descriptor = descriptor;
        this.allocator = new OffsetAllocator(descriptor.sizeBytes());
    }

    String name() {
        return descriptor.name();
    }

    long capacity() {
        return allocator.capacity();
    }

    long used() {
        return allocator.usedBytes();
    }

    double freeRatio() {
        long cap = capacity();
        return cap == 0 ? 0 : 1.0 - (double) used() / cap;
    }

    /** Offset of a new block, or -1 when full or retired. */
    long allocate(long size) {
        return retired ? -1 : allocator.allocate(size);
    }

    /** Frees a block and returns its rounded size; 0 if the segment is gone already. */
    long free(long offset, long size) {
        return retired ? 0 : allocator.free(offset, size);
    }

    /** Frees many blocks under one lock; 0 if the segment is gone already. */
    long freeAll(long[] offsets, long[] sizes, int n) {
        return retired ? 0 : allocator.freeAll(offsets, sizes, n);
    }

    /** The longest free extent; 0 once the segment is gone. */
    long largestFreeExtent() {
        return retired ? 0 : allocator.largestFreeExtent();
    }

    /** The free extents by offset, {offset, length} each; none once the segment is gone. */
    long[][] freeExtents() {
        return retired ? new long[0][] : allocator.freeExtents();
    }

    /** The blocks here that a room search may take (see {@link RoomMaker}). */
    EvictableBlocks evictable() {
        return evictable;
    }

    /** The same segment, reached through these endpoints from now on. */
    void reachVia(java.util.List<org.mooncake.osgi.store.master.SegmentEndpoint> endpoints) {
        descriptor = descriptor.withEndpoints(endpoints); // the memory it lives in stays what the mount said
    }

    void retire() {
        retired = true;
    }

    boolean retired() {
        return retired;
    }

    SegmentStats stats() {
        SegmentDescriptor d = descriptor;
        String protocols = String.join(",", d.endpoints().stream().map(e -> e.protocol()).toList());
        return new SegmentStats(name(), d.clientId(), protocols, capacity(), used(),
                d.endpoints().stream().map(e -> e.protocol() + "://" + e.address()).toList(), d.memoryKind());
    }
}
