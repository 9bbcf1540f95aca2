package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MemoryKindStats;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * Mounted segments and replica placement. Segments come and go concurrently with puts; a
 * segment is retired before it is dropped, so no block is handed out of a segment being
 * unmounted.
 */
final class Segments {
    private final ConcurrentMap<String, Segment> byName = new ConcurrentHashMap<>();
    /**
     * The mounted segments as an array, replaced on every mount and drop, for placement: a put
     * reads it instead of walking the map. It may lag a concurrent mount (that put does not see
     * the new segment yet) or drop (a dropped segment is retired first and takes no blocks).
     */
    private volatile Segment[] placeable = new Segment[0];
    /** The largest of {@link #placeable}'s capacities, kept with it: every put asks for it. */
    private volatile long largestCapacity;

    Segment mount(SegmentDescriptor d) {
        StoreException.require(d != null && d.name() != null && !d.name().isEmpty(), "segment name is required");
        StoreException.require(d.sizeBytes() >= OffsetAllocator.ALIGNMENT,
                "segment must hold at least " + OffsetAllocator.ALIGNMENT + " bytes, was " + d.sizeBytes());
        StoreException.require(d.clientId() != null && !d.clientId().isEmpty(), "segment owner is required");
        StoreException.require(!d.endpoints().isEmpty(), "a segment needs at least one endpoint");
        Segment s = new Segment(d);
        if (byName.putIfAbsent(d.name(), s) != null) {
            throw new StoreException(ErrorCode.SEGMENT_ALREADY_EXISTS, "segment " + d.name() + " is mounted already");
        }
        refreshPlaceable();
        return s;
    }

    private synchronized void refreshPlaceable() {
        Segment[] now = byName.values().toArray(Segment[]::new);
        long largest = 0;
        for (Segment s : now) {
            largest = Math.max(largest, s.capacity());
        }
        placeable = now;
        largestCapacity = largest;
    }

    Segment get(String name) {
        return byName.get(name);
    }

    void drop(Segment s) {
        if (byName.remove(s.name(), s)) {
            refreshPlaceable();
        }
    }

    List<Segment> all() {
        return new ArrayList<>(byName.values());
    }

    List<Segment> ownedBy(String clientId) {
        return byName.values().stream().filter(s -> s.descriptor.clientId().equals(clientId)).toList();
    }

    long capacity() {
        long c = 0;
        for (Segment s : byName.values()) {
            c += s.capacity();
        }
        return c;
    }

    long used() {
        long u = 0;
        for (Segment s : byName.values()) {
            u += s.used();
        }
        return u;
    }

    /** Capacity and use by the memory kind of the segments, one entry per kind mounted, in {@link MemoryKind} order. */
    List<MemoryKindStats> byMemoryKind() {
        java.util.EnumMap<MemoryKind, long[]> by = new java.util.EnumMap<>(MemoryKind.class);
        for (Segment s : byName.values()) {
            long[] f = by.computeIfAbsent(s.descriptor.memoryKind(), k -> new long[3]);
            f[0]++;
            f[1] += s.capacity();
            f[2] += s.used();
        }
        List<MemoryKindStats> out = new ArrayList<>(by.size());
        by.forEach((kind, f) -> out.add(new MemoryKindStats(kind, (int) f[0], f[1], f[2])));
        return out;
    }

    /** The capacity of the largest mounted segment; 0 when none is. May lag a concurrent mount or drop, as placement does. */
    long largestCapacity() {
        return largestCapacity;
    }

    /**
     * Up to {@code count} blocks of {@code size} bytes on distinct segments: preferred segments
     * first, then in the strategy's order. Empty when none fits. RANDOM draws the order one
     * segment at a time (a Fisher-Yates shuffle stopped once the replicas are placed): the same
     * uniformly random order as shuffling all segments first, without paying for all of them.
     */
    List<Replica> place(long size, int count, List<String> preferred, AllocationStrategy strategy) {
        List<Replica> out = new ArrayList<>(count);
        // null without preferred segments: asking even an empty set cost a put 100 ns
        Set<Segment> tried = preferred.isEmpty() ? null : new HashSet<>();
        for (String name : preferred) {
            Segment s = byName.get(name);
            if (s != null && tried.add(s)) {
                tryPlace(s, size, out);
                if (out.size() == count) {
                    return out;
                }
            }
        }
        Segment[] rest = placeable.clone();
        if (strategy == AllocationStrategy.FREE_RATIO_FIRST) {
            java.util.Arrays.sort(rest, Comparator.comparingDouble(Segment::freeRatio).reversed());
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < rest.length && out.size() < count; i++) {
            if (strategy == AllocationStrategy.RANDOM) {
                int j = i + random.nextInt(rest.length - i);
                Segment pick = rest[j];
                rest[j] = rest[i];
                rest[i] = pick;
            }
            if (tried == null || !tried.contains(rest[i])) {
                tryPlace(rest[i], size, out);
            }
        }
        return out;
    }

    private static void tryPlace(Segment s, long size, List<Replica> out) {
        long offset = s.allocate(size);
        if (offset >= 0) {
            out.add(new Replica(s, offset, size));
        }
    }
}
