package org.mooncake.osgi.epd.api.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Native buffers for tensor objects on their way to or from the store, reused. A connector
 * writes a header and a payload into one (a put needs them contiguous) or reads an object into
 * one before checking its header; allocating a fresh buffer for each transfer meant zeroing a
 * mebibyte and freeing it again every time, which a transfer of that size over loopback TCP
 * notices. Buffers come in power-of-two sizes from 64 KiB; up to {@link #KEPT} of each size wait
 * for reuse, and the garbage collector frees the rest ({@link Arena#ofAuto}). Thread-safe; a buffer
 * is its taker's alone until given back.
 */
public final class ScratchBuffers {
    /** Buffers of one size kept for reuse. */
    static final int KEPT = 8;
    private static final int SMALLEST = 16; // 64 KiB
    private static final int LARGEST = 30; // 1 GiB
    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedDeque<MemorySegment>[] free = new ConcurrentLinkedDeque[LARGEST + 1];

    public ScratchBuffers() {
        for (int i = SMALLEST; i <= LARGEST; i++) {
            free[i] = new ConcurrentLinkedDeque<>();
        }
    }

    private static int sizeClass(long bytes) {
        int c = 64 - Long.numberOfLeadingZeros(Math.max(1, bytes - 1));
        if (c > LARGEST) {
            throw new IllegalArgumentException("a scratch buffer holds at most 1 GiB, asked for " + bytes);
        }
        return Math.max(SMALLEST, c);
    }

    /**
     * A buffer of exactly {@code bytes} (64-byte aligned; its bytes are whatever was left in it),
     * given back when the lease is closed.
     */
    public Lease take(long bytes) {
        int c = sizeClass(bytes);
        MemorySegment whole = free[c].pollFirst();
        if (whole == null) {
            whole = Arena.ofAuto().allocate(1L << c, 64);
        }
        return new Lease(whole, whole.asSlice(0, bytes), c);
    }

    /** One buffer, its taker's until {@link #close}. */
    public final class Lease implements AutoCloseable {
        private final MemorySegment whole;
        private final MemorySegment segment;
        private final int sizeClass;

        private Lease(MemorySegment whole, MemorySegment segment, int sizeClass) {
            this.whole = whole;
            this.segment = segment;
            this.sizeClass = sizeClass;
        }

        public MemorySegment segment() {
            return segment;
        }

        /** Gives the buffer back (kept for reuse while few of its size wait). */
        @Override
        public void close() {
            if (free[sizeClass].size() < KEPT) {
                free[sizeClass].addFirst(whole);
            }
        }
    }
}
