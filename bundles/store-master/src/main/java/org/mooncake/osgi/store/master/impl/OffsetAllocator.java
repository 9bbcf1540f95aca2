package org.mooncake.osgi.store.master.impl;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Best-fit allocator of offsets within one segment, with coalescing of free neighbours.
 * O(log n) per call; every block is a multiple of {@link #ALIGNMENT} bytes so that transfers
 * start cache-line (and DMA) aligned. Thread-safe: the free trees are guarded by the instance's
 * monitor, which only callers of {@link #allocate}, {@link #free} and queries take: an eviction
 * round's {@link #freeAll} hands its blocks over without it (see there).
 */
final class OffsetAllocator {
    static final long ALIGNMENT = 64;
    private static final System.Logger LOG = System.getLogger(OffsetAllocator.class.getName());
    /** Returned runs an allocation moves into the free trees before it looks, at most. */
    private static final int RETURNED_PER_ALLOCATION = 64;

    /** A range of blocks freed together, joined with its freed neighbours. */
    private record Run(long offset, long length) {
    }

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
    /** Changed under the monitor, except by {@link #freeAll}; read without it. */
    private final AtomicLong usedBytes = new AtomicLong();
    /** Runs {@link #freeAll} handed over, not yet in the free trees: counted free already. */
    private final ConcurrentLinkedQueue<Run> returned = new ConcurrentLinkedQueue<>();

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
        takeReturned(RETURNED_PER_ALLOCATION);
        Extent fit = freeBySize.ceiling(new Extent(block, -1));
        if (fit == null && !returned.isEmpty()) {
            takeReturned(Integer.MAX_VALUE);
            fit = freeBySize.ceiling(new Extent(block, -1));
        }
        if (fit == null) {
            return -1;
        }
        removeFree(fit.offset, fit.length);
        if (fit.length > block) {
            addFree(fit.offset + block, fit.length - block);
        }
        usedBytes.addAndGet(block);
        return fit.offset;
    }

    /**
     * Returns the block {@link #allocate} gave for {@code size} bytes at {@code offset}; returns
     * its rounded size. The caller (the block's one owner) knows the size, so no per-block map is
     * kept; a block that overlaps free space is refused as a double free.
     */
    synchronized long free(long offset, long size) {
        long block = blockSize(size);
        freeRange(offset, block);
        usedBytes.addAndGet(-block);
        return block;
    }

    /**
     * Returns many blocks at once, an eviction round's victims, without taking the monitor:
     * adjacent blocks are joined into runs (a round's victims are mostly neighbours: one run, or
     * a few hundred, for 70,000 blocks), which count as free at once and enter the free trees
     * when the next allocations take them. So a put never waits for a round that holds the
     * allocator, however long the round's thread is descheduled; the allocation that takes the
     * runs spends about a microsecond on each. Returns the bytes freed.
     */
    long freeAll(long[] offsets, long[] sizes, int n) {
        long[][] blocks = new long[n][];
        for (int i = 0; i < n; i++) {
            blocks[i] = new long[] {offsets[i], blockSize(sizes[i])};
        }
        java.util.Arrays.sort(blocks, (a, b) -> Long.compare(a[0], b[0]));
        long freed = 0;
        for (int i = 0; i < n;) {
            long start = blocks[i][0];
            long end = start + blocks[i][1];
            int j = i + 1;
            while (j < n && blocks[j][0] == end) {
                end += blocks[j][1];
                j++;
            }
            returned.add(new Run(start, end - start));
            freed += end - start;
            i = j;
        }
        usedBytes.addAndGet(-freed);
        return freed;
    }

    /** Moves up to {@code max} returned runs into the free trees. Caller holds the monitor. */
    private void takeReturned(int max) {
        Run run;
        for (int i = 0; i < max && (run = returned.poll()) != null; i++) {
            try {
                freeRange(run.offset, run.length);
            } catch (IllegalStateException e) {
                // a bug elsewhere returned a block twice; the trees stay consistent without it
                usedBytes.addAndGet(run.length);
                LOG.log(System.Logger.Level.ERROR, "eviction returned blocks that are not allocated", e);
            }
        }
    }

    /** Puts a range into the free trees, joined with its free neighbours. Caller holds the monitor. */
    private void freeRange(long offset, long block) {
        Map.Entry<Long, Long> free = freeByOffset.floorEntry(offset + block - 1);
        if (offset < 0 || offset + block > capacity || free != null && free.getKey() + free.getValue() > offset) {
            throw new IllegalStateException("block " + offset + "+" + block + " is not allocated");
        }
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
    }

    long usedBytes() {
        return usedBytes.get();
    }

    long capacity() {
        return capacity;
    }

    synchronized long largestFreeExtent() {
        takeReturned(Integer.MAX_VALUE);
        return freeBySize.isEmpty() ? 0 : freeBySize.last().length;
    }

    /** The free extents by offset, as {offset, length} pairs: a snapshot. */
    synchronized long[][] freeExtents() {
        takeReturned(Integer.MAX_VALUE);
        long[][] out = new long[freeByOffset.size()][];
        int i = 0;
        for (Map.Entry<Long, Long> e : freeByOffset.entrySet()) {
            out[i++] = new long[] {e.getKey(), e.getValue()};
        }
        return out;
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
