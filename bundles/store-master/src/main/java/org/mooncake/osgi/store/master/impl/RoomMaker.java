package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * What to evict so that a segment gets one free range of a given size, for a put that found none.
 * A round frees bytes wherever its victims lie, mostly small blocks scattered over the segment,
 * so a large object (a video's hidden state) could stay out of a store that freed more than its
 * size many times over. Among the ranges made of free extents and the blocks of objects that may
 * be evicted now (eligible for pass 1, one replica), contiguous and long enough, it takes the one
 * whose objects' recompute cost hints (in whole microseconds) add up least (an object without a
 * hint counts 0), then the one with the fewest bytes in use.
 *
 * <p>Walks each segment's {@link EvictableBlocks} and free extents together in offset order; a
 * listed block that is leased (the ends of the lease orders say which) or soft pinned ends a
 * range, as does anything not listed (a put in progress, a hard-pinned or replicated object).
 * Only the chosen range's owners are read, to check that each is still what its block says;
 * one that is not ends ranges too, and the search runs again, at most {@value #RETRIES} times.
 *
 * <p>Runs on the eviction thread without any lock a get or put needs: a victim that changes
 * meanwhile fails its claim, and the range then stays short until a later round.
 */
final class RoomMaker {
    private static final int RETRIES = 2;
    private static final long[] NONE = {};

    /** A range of segment {@code segment} from {@code start} to {@code end}. */
    private record Range(Segment segment, long start, long end, long costUs, long liveBytes) {
        boolean cheaperThan(Range o) {
            return o == null || o.beatenBy(costUs, liveBytes);
        }

        /** Whether a range that costs this much, with this many bytes in use, would be cheaper. */
        boolean beatenBy(long otherCostUs, long otherLiveBytes) {
            return otherCostUs < costUs || otherCostUs == costUs && otherLiveBytes < liveBytes;
        }
    }

    private RoomMaker() {
    }

    /** The victims, in offset order; empty when no segment can get such a range this way. */
    static List<IndexEntry> cheapestRange(List<Segment> segments, EvictionRequest request, long room) {
        Map<Segment, long[]> barriers = leased(request);
        for (int attempt = 0;; attempt++) {
            Range best = null;
            for (Segment s : segments) {
                if (!s.retired()) {
                    Range r = cheapestIn(s, barriers.getOrDefault(s, NONE), request, room);
                    if (r != null && r.cheaperThan(best)) {
                        best = r;
                    }
                }
            }
            if (best == null) {
                return List.of();
            }
            List<IndexEntry> victims = new ArrayList<>();
            long[] changed = victimsIn(best, request, victims);
            if (changed.length == 0 || attempt == RETRIES) {
                return victims;
            }
            long[] before = barriers.getOrDefault(best.segment(), NONE);
            long[] now = Arrays.copyOf(before, before.length + changed.length);
            System.arraycopy(changed, 0, now, before.length, changed.length);
            Arrays.sort(now);
            barriers.put(best.segment(), now);
        }
    }

    /**
     * Offsets of leased blocks by segment, sorted: from each group's newest lease back to the
     * first that has ended, so O(leased objects), which are few.
     */
    private static Map<Segment, long[]> leased(EvictionRequest request) {
        Map<Segment, List<Long>> found = new HashMap<>();
        for (CandidateGroup g : request.groups()) {
            if (g instanceof CandidateIndex.Group group) {
                for (Iterator<CandidateView> it = group.entries.descending(); it.hasNext();) {
                    if (!(it.next() instanceof IndexEntry e) || !e.leasedAt(request.nowMs())) {
                        break;
                    }
                    if (e.replicaCount() == 1 && e.firstSegment != null) {
                        found.computeIfAbsent(e.firstSegment, s -> new ArrayList<>()).add(e.firstOffset);
                    }
                }
            }
        }
        Map<Segment, long[]> out = new HashMap<>();
        found.forEach((s, offsets) -> {
            long[] a = offsets.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(a);
            out.put(s, a);
        });
        return out;
    }

    /**
     * The cheapest range of {@code s}, or null: its free extents and listed blocks, merged by
     * offset. Skips the chunks that cannot end a range cheaper than the best found so far: every
     * range that ends among a chunk's blocks (or the free space just before them) holds the whole
     * chunks that lie within {@code room} before it, so their blocks' costs and lengths, added up,
     * bound it from below. After a skip longer than a range, it reads on from where the first
     * piece of such a range may start.
     *
     * <p>The scan starts from a good range: the cheapest of those that end in the chunk where the
     * summary says the cheapest range likely ends. Otherwise a large room skipped little: ranges a
     * tenth of a segment long cost about the same wherever they lie, so the best found early, and
     * its margin over the bounds, stayed poor for most of the scan (a room of 12.5% at 10^6 blocks
     * read nearly every block, 16–50 ms). Ties go to the range that ends first, as in a scan
     * without the start.
     */
    private static Range cheapestIn(Segment s, long[] barriers, EvictionRequest request, long room) {
        EvictableBlocks blocks = s.evictable();
        Chunks chunks = new Chunks(blocks.summary(), room);
        long[][] free = s.freeExtents();
        long pinnedAfter = request.softPinnedAllowed() ? Long.MAX_VALUE : request.nowMs();
        Window w = new Window(s, room, free, barriers, pinnedAfter);
        int seed = chunks.likelyBest();
        if (seed >= 0) {
            Window start = new Window(s, room, free, barriers, pinnedAfter);
            long from = chunks.readFrom(seed);
            start.skipTo(from);
            read(blocks, start, from, chunks.summary.ends()[seed]);
            w.best = start.best;
        }
        long next = Long.MIN_VALUE; // the lowest offset not read yet
        for (int c = 0; c < chunks.count && next != Long.MAX_VALUE; c++) {
            if (c < chunks.count - 1 && !chunks.mayEndABetterRange(c, w.best)) {
                continue;
            }
            long from = chunks.readFrom(c);
            if (next < from) {
                w.skipTo(from);
                next = from;
            }
            next = read(blocks, w, next, chunks.summary.ends()[c]);
        }
        w.freeUpTo(Long.MAX_VALUE);
        return w.best;
    }

    /** Hands {@code w} the blocks from {@code next} on, a chunk at a time, until past {@code until}; returns where to go on. */
    private static long read(EvictableBlocks blocks, Window w, long next, long until) {
        while (next < until) {
            long after = blocks.read(next, w);
            next = after == Long.MIN_VALUE ? Long.MAX_VALUE : after;
        }
        return next;
    }

    /** A segment's listing by chunks, and the lower bound of the ranges that end in each. */
    private static final class Chunks {
        final EvictableBlocks.Summary summary;
        final int count;
        private final long room;
        /** Sums over the chunks before each: {@code lengthsBefore[c]} covers chunks {@code 0..c-1}. */
        private final long[] lengthsBefore;
        private final long[] costsBefore;
        /** For each chunk, the first chunk that starts at or after its end less {@code room}. */
        private final int[] within;

        Chunks(EvictableBlocks.Summary summary, long room) {
            this.summary = summary;
            this.count = summary.count();
            this.room = room;
            lengthsBefore = new long[count + 1];
            costsBefore = new long[count + 1];
            within = new int[count];
            int first = 0;
            for (int c = 0; c < count; c++) {
                lengthsBefore[c + 1] = lengthsBefore[c] + summary.lengths()[c];
                costsBefore[c + 1] = costsBefore[c] + summary.costsUs()[c];
                long reach = summary.ends()[c] - room;
                while (first < c && summary.firsts()[first] < reach) {
                    first++;
                }
                within[c] = first;
            }
        }

        long boundCost(int c) {
            return costsBefore[c] - costsBefore[within[c]];
        }

        long boundLive(int c) {
            return lengthsBefore[c] - lengthsBefore[within[c]];
        }

        /**
         * Whether a range that ends in chunk {@code c} could be chosen over {@code best}: its bound
         * is not dearer (a range that ties may still win by ending first).
         */
        boolean mayEndABetterRange(int c, Range best) {
            return best == null || !dearer(c, best);
        }

        private boolean dearer(int c, Range best) {
            return boundCost(c) > best.costUs() || boundCost(c) == best.costUs() && boundLive(c) > best.liveBytes();
        }

        /**
         * The chunk in which the cheapest range likely ends, or -1 when no chunk has a room's
         * length of listing before its end: the one whose chunks from the one holding the range's
         * start on cost least together (an estimate from above, where the bound is one from below).
         */
        int likelyBest() {
            int likely = -1;
            long likelyCost = 0;
            long likelyLive = 0;
            for (int c = 0; c < count; c++) {
                int first = within[c] - 1; // holds the start of the shortest ranges that end in c
                if (first < 0 || summary.ends()[c] - summary.firsts()[first] < room) {
                    continue;
                }
                long cost = costsBefore[c + 1] - costsBefore[first];
                long live = lengthsBefore[c + 1] - lengthsBefore[first];
                if (likely < 0 || cost < likelyCost || cost == likelyCost && live < likelyLive) {
                    likely = c;
                    likelyCost = cost;
                    likelyLive = live;
                }
            }
            return likely;
        }

        /** Where a scan that skipped up to chunk {@code c} reads on, to see every range that ends in it. */
        long readFrom(int c) {
            return c == 0 ? Long.MIN_VALUE : summary.ends()[c - 1] - room - summary.maxLength();
        }
    }

    /**
     * Adds the entries of the blocks in {@code r} to {@code victims}; returns the offsets of those
     * whose owner no longer has that block published and eligible (the index changed since).
     * Copies the blocks under the listing's lock, reads their owners (a cache miss or two each) after.
     */
    private static long[] victimsIn(Range r, EvictionRequest request, List<IndexEntry> victims) {
        List<ObjectMeta> owners = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        EvictableBlocks.ChunkReader copy = (blocks, blockOwners, from, to) -> {
            for (int j = from; j < to && blocks[EvictableBlocks.FIELDS * j + EvictableBlocks.OFFSET] < r.end(); j++) {
                offsets.add(blocks[EvictableBlocks.FIELDS * j + EvictableBlocks.OFFSET]);
                owners.add(blockOwners[j]);
            }
        };
        for (long from = r.start(); from != Long.MIN_VALUE && from < r.end(); from = r.segment().evictable().read(from, copy)) {
            // each call copies one chunk
        }
        List<Long> changed = new ArrayList<>();
        for (int i = 0; i < owners.size(); i++) {
            IndexEntry e = owners.get(i).published();
            if (e != null && e.firstSegment == r.segment() && e.firstOffset == offsets.get(i) && e.replicaCount() == 1
                    && request.eligible(e)) {
                victims.add(e);
            } else {
                changed.add(offsets.get(i));
            }
        }
        return changed.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * The cheapest window of contiguous pieces at least {@code room} long, over a segment's free
     * extents and listed blocks handed over in offset order: for each right end, the shortest
     * window that still reaches {@code room} (costs are never negative, so it is also the cheapest
     * with that end). O(1) per piece, amortised; holds only the current window's pieces, each as
     * its length (negative for free space) and cost. Costs are whole microseconds, so the sums
     * are exact and the loop has no floating-point chain to wait on.
     */
    private static final class Window implements EvictableBlocks.ChunkReader {
        private static final int F = EvictableBlocks.FIELDS;
        private final Segment segment;
        private final long room;
        private final long[][] free;
        private int nextFree;
        private final long[] barriers;
        private int nextBarrier;
        /** A block soft pinned past this time ends ranges; {@code Long.MAX_VALUE} when pins may go. */
        private final long pinnedAfter;
        /** The window's pieces are at [head, tail): length, negative for free space, and cost. */
        private long[] lengths = new long[1024];
        private long[] costs = new long[1024];
        private int head;
        private int tail;
        /** Where the last piece ended; -1 after something that may not go. */
        private long end = -1;
        private long length;
        private long liveBytes;
        private long costUs;
        Range best;

        Window(Segment segment, long room, long[][] free, long[] barriers, long pinnedAfter) {
            this.segment = segment;
            this.room = room;
            this.free = free;
            this.barriers = barriers;
            this.pinnedAfter = pinnedAfter;
        }

        @Override
        public void read(long[] blocks, ObjectMeta[] owners, int from, int to) {
            for (int j = from; j < to; j++) {
                long offset = blocks[F * j + EvictableBlocks.OFFSET];
                freeUpTo(offset);
                while (nextBarrier < barriers.length && barriers[nextBarrier] < offset) {
                    nextBarrier++;
                }
                if (nextBarrier < barriers.length && barriers[nextBarrier] == offset
                        || blocks[F * j + EvictableBlocks.SOFT_PIN_DEADLINE_MS] > pinnedAfter) {
                    end = -1;
                } else {
                    long l = blocks[F * j + EvictableBlocks.LENGTH];
                    add(offset, l, l, blocks[F * j + EvictableBlocks.COST_US]);
                }
            }
        }

        /** Reads on at {@code offset}: what lies between is left out, and no range spans it. */
        void skipTo(long offset) {
            end = -1;
            while (nextFree < free.length && free[nextFree][0] + free[nextFree][1] <= offset) {
                nextFree++;
            }
        }

        /** Adds the free extents that start before {@code offset}. */
        void freeUpTo(long offset) {
            for (; nextFree < free.length && free[nextFree][0] < offset; nextFree++) {
                add(free[nextFree][0], free[nextFree][1], 0, 0);
            }
        }

        private void add(long offset, long pieceLength, long pieceLive, long pieceCost) {
            if (offset != end) { // the first piece, or something that may not go lies between
                head = 0;
                tail = 0;
                length = 0;
                liveBytes = 0;
                costUs = 0;
            }
            if (tail == lengths.length) {
                makeSpace();
            }
            lengths[tail] = pieceLive > 0 ? pieceLength : -pieceLength;
            costs[tail++] = pieceCost;
            end = offset + pieceLength;
            length += pieceLength;
            liveBytes += pieceLive;
            costUs += pieceCost;
            while (length - Math.abs(lengths[head]) >= room) {
                long x = lengths[head];
                length -= Math.abs(x);
                liveBytes -= Math.max(x, 0);
                costUs -= costs[head++];
            }
            if (length >= room && (best == null || best.beatenBy(costUs, liveBytes)
                    || costUs == best.costUs() && liveBytes == best.liveBytes() && end < best.end())) {
                best = new Range(segment, end - length, end, costUs, liveBytes);
            }
        }

        /** Moves the window's pieces to the front, and doubles the arrays if that frees too little. */
        private void makeSpace() {
            int n = tail - head;
            int size = n > lengths.length / 2 ? 2 * lengths.length : lengths.length;
            long[] l = size == lengths.length ? lengths : new long[size];
            long[] c = size == costs.length ? costs : new long[size];
            System.arraycopy(lengths, head, l, 0, n);
            System.arraycopy(costs, head, c, 0, n);
            lengths = l;
            costs = c;
            head = 0;
            tail = n;
        }
    }
}
