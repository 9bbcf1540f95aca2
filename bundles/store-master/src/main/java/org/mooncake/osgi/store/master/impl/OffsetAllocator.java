package org.mooncake.osgi.store.master.impl;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Best-fit allocator of offsets within one segment, with coalescing of free neighbours.
 * O(log n) per call; every block is a multiple of {@link #ALIGNMENT} bytes so that transfers
 * start cache-line (and DMA) aligned. Thread-safe: callers serialize on the instance.
 */
final class OffsetAllocator {
    static final long ALIGNMENT = 64;

    private record Extent(long length, long offset) implements Comparable<Extent> {
        @Override
        public int compareTo(Extent o) {
            int c = Long.compare(length, o.length);
            return c != 0 ? c : Long.compare(offset, o.offset);
        }
    }

    private final long capacity;
    private final TreeMap<Long, Long> freeByOffset = new TreeMap<>();
    private final TreeSet<Extent> freeBySize = new TreeSet<>();
    private final Map<Long, Long> allocated = new HashMap<>();
    private long usedBytes;

    OffsetAllocator(long capacity) {
        this.capacity = capacity - capacity % ALIGNMENT;
        if (this.capacity > 0) {
            addFree(0, this.capacity);
        }
    }

    static long blockSize(long size) {
        return (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    /** The offset of a new block of at least {@code size} bytes, or -1 when no free extent fits. */
    synchronized long allocate(long size) {
        long block = blockSize(size);
        Extent fit = freeBySize.ceiling(new Extent(block, -1));
        if (fit == null) {
            return -1;
        }
        removeFree(fit.offset, fit.length);
        if (fit.length > block) {
            addFree(fit.offset + block, fit.length - block);
        }
        allocated.put(fit.offset, block);
        usedBytes += block;
        return fit.offset;
    }

    /** Returns a block; its size is the one {@link #allocate} rounded to. */
    synchronized long free(long offset) {
        Long block = allocated.remove(offset);
        if (block == null) {
            throw new IllegalStateException("offset " + offset + " is not allocated");
        }
        usedBytes -= block;
        long start = offset;
        long length = block;
        Map.Entry<Long, Long> before = freeByOffset.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset) {
            removeFree(before.getKey(), before.getValue());
            start = before.getKey();
            length += before.getValue();
        }
        Long afterLength = freeByOffset.get(offset + block);
        if (afterLength != null) {
            removeFree(offset + block, afterLength);
            length += afterLength;
        }
        addFree(start, length);
        return block;
    }

    synchronized long usedBytes() {
        return usedBytes;
    }

    long capacity() {
        return capacity;
    }

    synchronized long largestFreeExtent() {
        return freeBySize.isEmpty() ? 0 : freeBySize.last().length;
    }

    private void addFree(long offset, long length) {
        freeByOffset.put(offset, length);
        freeBySize.add(new Extent(length, offset));
    }

    private void removeFree(long offset, long length) {
        freeByOffset.remove(offset);
        freeBySize.remove(new Extent(length, offset));
    }
}
