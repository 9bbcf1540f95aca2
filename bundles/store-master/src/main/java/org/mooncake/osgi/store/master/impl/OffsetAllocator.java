package org.mooncake.osgi.store.master.impl;

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
    private static final int RUNS_PER_LOCK = 64;

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
        usedBytes += block;
        return fit.offset;
    }

    /**
     * Returns the block {@link #allocate} gave for {@code size} bytes at {@code offset}; returns
     * its rounded size. The caller (the block's one owner) knows the size, so no per-block map is
     * kept; a block that overlaps free space is refused as a double free.
     */
    synchronized long free(long offset, long size) {
        return freeRange(offset, blockSize(size));
    }

    /**
     * Returns many blocks at once: adjacent ones are joined first (outside the lock), so a run of
     * neighbours, an eviction round's usual victims, costs one tree update instead of one per
     * block; the lock is taken per {@value #RUNS_PER_LOCK} runs so allocations interleave.
     */
    long freeAll(long[] offsets, long[] sizes, int n) {
        long[][] blocks = new long[n][];
        for (int i = 0; i < n; i++) {
            blocks[i] = new long[] {offsets[i], blockSize(sizes[i])};
        }
        java.util.Arrays.sort(blocks, (a, b) -> Long.compare(a[0], b[0]));
        long[] runStart = new long[n];
        long[] runLength = new long[n];
        int runs = 0;
        for (int i = 0; i < n;) {
            long start = blocks[i][0];
            long end = start + blocks[i][1];
            int j = i + 1;
            while (j < n && blocks[j][0] == end) {
                end += blocks[j][1];
                j++;
            }
            runStart[runs] = start;
            runLength[runs++] = end - start;
            i = j;
        }
        long freed = 0;
        for (int r = 0; r < runs; r += RUNS_PER_LOCK) {
            synchronized (this) {
                for (int k = r; k < Math.min(runs, r + RUNS_PER_LOCK); k++) {
                    freed += freeRange(runStart[k], runLength[k]);
                }
            }
        }
        return freed;
    }

    private long freeRange(long offset, long block) {
        Map.Entry<Long, Long> free = freeByOffset.floorEntry(offset + block - 1);
        if (offset < 0 || offset + block > capacity || free != null && free.getKey() + free.getValue() > offset) {
            throw new IllegalStateException("block " + offset + "+" + block + " is not allocated");
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
