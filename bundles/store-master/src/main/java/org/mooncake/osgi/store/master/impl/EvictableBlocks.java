package org.mooncake.osgi.store.master.impl;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One segment's blocks that a {@link RoomMaker room search} may take, by offset: the single copy
 * of a readable version of an object that is not hard pinned, with what the search weighs (its
 * length, recompute cost hint and soft-pin deadline) and its owner. Kept as objects come and go,
 * so that the search reads a few primitive arrays in offset order instead of every evictable
 * object's entry, one cache miss each, and a sort (100–115 ms at 10^6 objects before this).
 * Leases are not kept here: they change on every read, and the leased objects are few and
 * found at the end of the lease order.
 *
 * <p>Sorted runs of at most {@value #CHUNK} blocks ("chunks"), found through a directory of their
 * lowest offsets.
 *
 * <p>Threads: a writer holds the owner's shard lock (put-end, remove, upsert, a segment's loss)
 * or is the evictor dropping its victims; a reader is the evictor's room search. The evictor's
 * side takes {@link #lock} for one short step at a time (a chunk's victims, or a reader's pass
 * over one chunk). A put or remove never waits for it: if the lock is taken, its change is queued
 * ({@link #deferred}), and whoever holds the lock next applies the queue, in order, before
 * anything else. Puts that waited on a monitor here stalled for up to 46 ms when the evictor's
 * thread, holding it, lost its core (`EvictionStallProbe`; docs/benchmarks.md, 'Gets and puts
 * beside a round').
 */
final class EvictableBlocks {
    static final int CHUNK = 128;

    /** Fields of a block in a chunk's {@code blocks}, at {@code FIELDS * i + field}. */
    static final int OFFSET = 0;
    static final int LENGTH = 1;
    /** The recompute cost hint in microseconds: whole numbers add up without rounding. */
    static final int COST_US = 2;
    static final int SOFT_PIN_DEADLINE_MS = 3;
    static final int FIELDS = 4;

    /** Reads one chunk's blocks in place, under the lock: it must not keep the arrays. */
    interface ChunkReader {
        /** Blocks {@code from} to {@code to} (exclusive), as {@code blocks[FIELDS * i + field]} and {@code owners[i]}. */
        void read(long[] blocks, ObjectMeta[] owners, int from, int to);
    }

    /** Blocks sorted by offset, their fields side by side, so that a scan reads one array in order. */
    private static final class Chunk {
        final long[] blocks = new long[FIELDS * CHUNK];
        final ObjectMeta[] owners = new ObjectMeta[CHUNK];
        int n;

        void shift(int from, int to, int count) {
            System.arraycopy(blocks, FIELDS * from, blocks, FIELDS * to, FIELDS * count);
            System.arraycopy(owners, from, owners, to, count);
        }

        long offset(int i) {
            return blocks[FIELDS * i + OFFSET];
        }

        /** The first position whose offset is at least {@code offset}. */
        int seek(long offset) {
            int lo = 0;
            int hi = n;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (offset(mid) < offset) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Writers' changes that found {@link #lock} taken, oldest first: applied by the next holder before anything else. */
    private final ConcurrentLinkedQueue<Change> deferred = new ConcurrentLinkedQueue<>();

    /** A deferred {@link #add} (with its length, cost and pin) or {@link #remove} (the rest 0). */
    private record Change(boolean add, long offset, long length, long costUs, long softPin, ObjectMeta owner) {
    }

    /** Lowest offset each chunk owns, ascending; the first is {@code Long.MIN_VALUE}, so every offset has a chunk. */
    private long[] lows = {Long.MIN_VALUE};
    private Chunk[] chunks = {new Chunk()};
    /**
     * Each chunk's first offset, end, and its blocks' lengths and costs added up, beside
     * {@link #lows}: what {@link #summary} copies. Read from the chunks themselves, a summary took
     * 4–5 ms at 10^6 blocks, three cache misses a chunk; these arrays it copies in a few
     * microseconds.
     */
    private long[] firsts = {0};
    private long[] ends = {0};
    private long[] lengths = {0};
    private long[] costs = {0};
    private int chunkCount = 1;
    private int size;
    /** The longest block ever listed: how far before an offset a block that reaches it may start. */
    private long maxLength;

    /**
     * The chunks in offset order, each as its first offset, the end of its last block, and the
     * lengths and recompute costs of its blocks added up; {@code count} of them, empty ones left
     * out. What a room search bounds its ranges with before it reads any block.
     */
    record Summary(int count, long[] firsts, long[] ends, long[] lengths, long[] costsUs, long maxLength) {
    }

    /**
     * Lists a block, or replaces what was listed at its offset. Caller holds the owner's shard
     * lock and lists the block before it publishes the owner's entry, so the evictor, which drops
     * a block only after claiming its entry, never drops it before it is listed.
     */
    void add(long offset, long length, double costMs, long softPinDeadlineMs, ObjectMeta owner) {
        long costUs = Double.isNaN(costMs) ? 0 : Math.round(Math.max(0, costMs) * 1000); // no hint counts 0
        if (!lock.tryLock()) {
            deferred.add(new Change(true, offset, length, costUs, softPinDeadlineMs, owner));
            return;
        }
        try {
            applyDeferred();
            addLocked(offset, length, costUs, softPinDeadlineMs, owner);
        } finally {
            unlockAndApply();
        }
    }

    private void addLocked(long offset, long length, long costUs, long softPinDeadlineMs, ObjectMeta owner) {
        int ci = chunkOf(offset);
        Chunk c = chunks[ci];
        int at = c.seek(offset);
        maxLength = Math.max(maxLength, length);
        if (at < c.n && c.offset(at) == offset) {
            uncount(ci, at);
            set(ci, at, offset, length, costUs, softPinDeadlineMs, owner);
            describe(ci);
            return;
        }
        if (c.n == CHUNK) {
            // blocks mostly arrive in offset order (a fresh segment fills from its start): an
            // append starts a new chunk and leaves this one full; elsewhere it splits in half
            int keep = at == CHUNK ? CHUNK : CHUNK / 2;
            Chunk right = split(ci, keep);
            if (at > keep || at == CHUNK) {
                c = right;
                at -= keep;
                ci++;
            }
        }
        c.shift(at, at + 1, c.n - at);
        set(ci, at, offset, length, costUs, softPinDeadlineMs, owner);
        c.n++;
        size++;
        describe(ci);
    }

    /** Forgets the block at {@code offset} if {@code owner} listed it. Caller holds the owner's shard lock. */
    void remove(long offset, ObjectMeta owner) {
        if (!lock.tryLock()) {
            deferred.add(new Change(false, offset, 0, 0, 0, owner));
            return;
        }
        try {
            applyDeferred();
            removeLocked(offset, owner);
        } finally {
            unlockAndApply();
        }
    }

    /** Applies the queued changes, oldest first. Caller holds {@link #lock}. */
    private void applyDeferred() {
        for (Change c; (c = deferred.poll()) != null;) {
            if (c.add()) {
                addLocked(c.offset(), c.length(), c.costUs(), c.softPin(), c.owner());
            } else {
                removeLocked(c.offset(), c.owner());
            }
        }
    }

    /**
     * Releases {@link #lock}, then applies what was queued meanwhile if the lock is free, so that
     * changes do not wait long in the queue (they would be applied before anyone reads anyway).
     */
    private void unlockAndApply() {
        lock.unlock();
        while (!deferred.isEmpty() && lock.tryLock()) {
            try {
                applyDeferred();
            } finally {
                lock.unlock();
            }
        }
    }

    private void removeLocked(long offset, ObjectMeta owner) {
        int ci = chunkOf(offset);
        Chunk c = chunks[ci];
        int at = c.seek(offset);
        if (at < c.n && c.offset(at) == offset && c.owners[at] == owner) {
            removeAt(ci, at);
        }
    }

    /**
     * Forgets the blocks at the ascending {@code offsets[0..n)}, whoever listed them: the evictor's
     * victims, before it frees them (after, a new block could already be listed there). Walks
     * each chunk that holds some of them once and closes the gaps in one pass: removing them one
     * at a time shifted the rest of a chunk for each (4–5 ms for 66,000 victims in offset order at
     * 10^6 blocks, against 1 ms this way; in random order, as on an aged store, both cost the
     * same, as each chunk then holds about one of a batch). Takes the lock for one chunk at a time.
     */
    void removeAll(long[] offsets, int n) {
        for (int i = 0; i < n;) {
            lock.lock(); // the evictor's side: it may wait
            try {
                applyDeferred();
                i = removeInChunk(offsets, i, n);
            } finally {
                unlockAndApply();
            }
        }
    }

    /** Removes the listed ones of the offsets from {@code i} on that fall in {@code offsets[i]}'s chunk; returns the index after them. */
    private int removeInChunk(long[] offsets, int i, int n) {
        int ci = chunkOf(offsets[i]);
        Chunk c = chunks[ci];
        long limit = ci + 1 < chunkCount ? lows[ci + 1] : Long.MAX_VALUE;
        int w = c.seek(offsets[i]);
        for (int r = w; r < c.n; r++) {
            long o = c.offset(r);
            while (i < n && offsets[i] < o) {
                i++;
            }
            if (i < n && offsets[i] == o) {
                uncount(ci, r);
                size--;
                i++;
                continue;
            }
            if (w != r) {
                System.arraycopy(c.blocks, FIELDS * r, c.blocks, FIELDS * w, FIELDS);
                c.owners[w] = c.owners[r];
            }
            w++;
        }
        while (i < n && offsets[i] < limit) {
            i++;
        }
        Arrays.fill(c.owners, w, c.n, null);
        c.n = w;
        dropIfEmpty(ci);
        return i;
    }

    /**
     * Hands {@code reader} the blocks from the lowest offset at least {@code from} to the end of
     * its chunk, in place; returns the offset to go on from (one past the last handed over), or
     * {@code Long.MIN_VALUE} when no block lies at or after {@code from}. Holds the lock for one
     * chunk only (a put meanwhile queues its change).
     */
    long read(long from, ChunkReader reader) {
        lock.lock();
        try {
            applyDeferred();
            for (int ci = chunkOf(from); ci < chunkCount; ci++) {
                Chunk c = chunks[ci];
                int at = c.seek(from);
                if (at < c.n) {
                    reader.read(c.blocks, c.owners, at, c.n);
                    return c.offset(c.n - 1) + 1;
                }
            }
            return Long.MIN_VALUE;
        } finally {
            unlockAndApply();
        }
    }

    /** The chunks as they are now; copies a few arrays of about one entry for every hundred blocks. */
    Summary summary() {
        lock.lock();
        try {
            applyDeferred();
            int from = chunks[0].n == 0 ? 1 : 0; // only the first chunk is ever empty
            int n = chunkCount - from;
            return new Summary(n, Arrays.copyOfRange(firsts, from, chunkCount), Arrays.copyOfRange(ends, from, chunkCount),
                    Arrays.copyOfRange(lengths, from, chunkCount), Arrays.copyOfRange(costs, from, chunkCount), maxLength);
        } finally {
            unlockAndApply();
        }
    }

    int size() {
        lock.lock();
        try {
            applyDeferred();
            return size;
        } finally {
            unlockAndApply();
        }
    }

    private void set(int ci, int at, long offset, long length, long costUs, long softPin, ObjectMeta owner) {
        Chunk c = chunks[ci];
        lengths[ci] += length;
        costs[ci] += costUs;
        c.blocks[FIELDS * at + OFFSET] = offset;
        c.blocks[FIELDS * at + LENGTH] = length;
        c.blocks[FIELDS * at + COST_US] = costUs;
        c.blocks[FIELDS * at + SOFT_PIN_DEADLINE_MS] = softPin;
        c.owners[at] = owner;
    }

    private void uncount(int ci, int at) {
        Chunk c = chunks[ci];
        lengths[ci] -= c.blocks[FIELDS * at + LENGTH];
        costs[ci] -= c.blocks[FIELDS * at + COST_US];
    }

    private void removeAt(int ci, int at) {
        Chunk c = chunks[ci];
        uncount(ci, at);
        c.shift(at + 1, at, c.n - at - 1);
        c.n--;
        c.owners[c.n] = null;
        size--;
        dropIfEmpty(ci);
    }

    /** Forgets chunk {@code ci} if it is empty (its offsets fall to the chunk before), else describes it anew. */
    private void dropIfEmpty(int ci) {
        if (chunks[ci].n > 0 || ci == 0) {
            describe(ci);
            return;
        }
        for (long[] a : new long[][] {lows, firsts, ends, lengths, costs}) {
            System.arraycopy(a, ci + 1, a, ci, chunkCount - ci - 1);
        }
        System.arraycopy(chunks, ci + 1, chunks, ci, chunkCount - ci - 1);
        chunks[--chunkCount] = null;
    }

    /** Copies chunk {@code ci}'s first offset and end into the directory (its sums are kept there as it changes). */
    private void describe(int ci) {
        Chunk c = chunks[ci];
        firsts[ci] = c.n == 0 ? 0 : c.offset(0);
        ends[ci] = c.n == 0 ? 0 : c.offset(c.n - 1) + c.blocks[FIELDS * (c.n - 1) + LENGTH];
    }

    /**
     * Moves the blocks of the full chunk {@code ci} past the first {@code keep} into a new chunk
     * after it; returns that. With {@code keep == CHUNK} the new chunk starts empty, and its lowest
     * offset is left for the caller's block.
     */
    private Chunk split(int ci, int keep) {
        Chunk c = chunks[ci];
        Chunk right = new Chunk();
        int moved = CHUNK - keep;
        System.arraycopy(c.blocks, FIELDS * keep, right.blocks, 0, FIELDS * moved);
        System.arraycopy(c.owners, keep, right.owners, 0, moved);
        Arrays.fill(c.owners, keep, CHUNK, null);
        right.n = moved;
        c.n = keep;
        long movedLengths = 0;
        long movedCosts = 0;
        for (int i = 0; i < moved; i++) {
            movedLengths += right.blocks[FIELDS * i + LENGTH];
            movedCosts += right.blocks[FIELDS * i + COST_US];
        }
        lengths[ci] -= movedLengths;
        costs[ci] -= movedCosts;
        if (chunkCount == chunks.length) {
            lows = Arrays.copyOf(lows, 2 * chunkCount);
            firsts = Arrays.copyOf(firsts, 2 * chunkCount);
            ends = Arrays.copyOf(ends, 2 * chunkCount);
            lengths = Arrays.copyOf(lengths, 2 * chunkCount);
            costs = Arrays.copyOf(costs, 2 * chunkCount);
            chunks = Arrays.copyOf(chunks, 2 * chunkCount);
        }
        for (long[] a : new long[][] {lows, firsts, ends, lengths, costs}) {
            System.arraycopy(a, ci + 1, a, ci + 2, chunkCount - ci - 1);
        }
        System.arraycopy(chunks, ci + 1, chunks, ci + 2, chunkCount - ci - 1);
        lows[ci + 1] = moved > 0 ? right.offset(0) : c.offset(CHUNK - 1) + 1;
        chunks[ci + 1] = right;
        lengths[ci + 1] = movedLengths;
        costs[ci + 1] = movedCosts;
        chunkCount++;
        describe(ci);
        describe(ci + 1);
        return right;
    }

    /** The chunk that owns {@code offset}: the last whose lowest offset is at most it. */
    private int chunkOf(long offset) {
        int at = Arrays.binarySearch(lows, 0, chunkCount, offset);
        return at >= 0 ? at : -at - 2;
    }
}
