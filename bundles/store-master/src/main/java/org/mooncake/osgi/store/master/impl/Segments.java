package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.SegmentDescriptor;

/**
 * Mounted segments and replica placement. Segments come and go concurrently with puts; a
 * segment is retired before it is dropped, so no block is handed out of a segment being
 * unmounted.
 */
final class Segments {
    private final ConcurrentMap<String, Segment> byName = new ConcurrentHashMap<>();

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
        return s;
    }

    Segment get(String name) {
        return byName.get(name);
    }

    void drop(Segment s) {
        byName.remove(s.name(), s);
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

    long largestCapacity() {
        long m = 0;
        for (Segment s : byName.values()) {
            m = Math.max(m, s.capacity());
        }
        return m;
    }

    /**
     * Up to {@code count} blocks of {@code size} bytes on distinct segments: preferred segments
     * first, then in the strategy's order. Empty when none fits.
     */
    List<Replica> place(long size, int count, List<String> preferred, AllocationStrategy strategy) {
        Set<Segment> order = new LinkedHashSet<>();
        for (String name : preferred) {
            Segment s = byName.get(name);
            if (s != null) {
                order.add(s);
            }
        }
        List<Segment> rest = new ArrayList<>(byName.values());
        switch (strategy) {
            case RANDOM -> Collections.shuffle(rest, ThreadLocalRandom.current());
            case FREE_RATIO_FIRST -> rest.sort(Comparator.comparingDouble(Segment::freeRatio).reversed());
        }
        order.addAll(rest);
        List<Replica> out = new ArrayList<>(count);
        for (Segment s : order) {
            if (out.size() == count) {
                break;
            }
            long offset = s.allocate(size);
            if (offset >= 0) {
                out.add(new Replica(s, offset, size));
            }
        }
        return out;
    }
}
