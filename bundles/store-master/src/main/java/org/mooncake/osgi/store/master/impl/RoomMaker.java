package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.Comparator;
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
 * whose objects' recompute cost hints add up least (an object without a hint counts 0), then the
 * one with the fewest bytes in use.
 *
 * <p>Runs on the eviction thread and reads the index as a plan does: a victim that changes
 * meanwhile fails its claim, and the range then stays short until a later round.
 */
final class RoomMaker {
    /** A free extent ({@code victim} null) or an evictable object's block. */
    private record Piece(long offset, long length, double cost, IndexEntry victim) {
    }

    private record Range(double cost, long liveBytes, List<IndexEntry> victims) {
        boolean cheaperThan(Range o) {
            return o == null || cost < o.cost || cost == o.cost && liveBytes < o.liveBytes;
        }
    }

    private RoomMaker() {
    }

    /** The victims, in offset order; empty when no segment can get such a range this way. */
    static List<IndexEntry> cheapestRange(List<Segment> segments, EvictionRequest request, long room) {
        Map<Segment, List<Piece>> pieces = new HashMap<>();
        for (CandidateGroup g : request.groups()) {
            for (Iterator<CandidateView> it = g.inLeaseOrder(); it.hasNext();) {
                if (it.next() instanceof IndexEntry e && e.replicaCount() == 1 && e.firstSegment != null
                        && e.published() && request.eligible(e)) {
                    double hint = e.recomputeCostMs();
                    pieces.computeIfAbsent(e.firstSegment, s -> new ArrayList<>()).add(new Piece(e.firstOffset,
                            OffsetAllocator.blockSize(e.sizeBytes()), Double.isNaN(hint) ? 0 : Math.max(0, hint), e));
                }
            }
        }
        Range best = null;
        for (Segment s : segments) {
            List<Piece> in = pieces.getOrDefault(s, new ArrayList<>());
            for (long[] free : s.freeExtents()) {
                in.add(new Piece(free[0], free[1], 0, null));
            }
            Range r = cheapestIn(in, room);
            if (r != null && r.cheaperThan(best)) {
                best = r;
            }
        }
        return best == null ? List.of() : best.victims();
    }

    /**
     * The cheapest window of contiguous pieces at least {@code room} long: for each right end, the
     * shortest window that still reaches {@code room} (costs are never negative, so it is also
     * the cheapest with that end). O(n log n) for the sort, then O(n).
     */
    private static Range cheapestIn(List<Piece> pieces, long room) {
        pieces.sort(Comparator.comparingLong(Piece::offset));
        Range best = null;
        int left = 0;
        long length = 0;
        long live = 0;
        double cost = 0;
        for (int right = 0; right < pieces.size(); right++) {
            Piece p = pieces.get(right);
            if (right > left) {
                Piece before = pieces.get(right - 1);
                if (before.offset() + before.length() != p.offset()) { // a block that may not go lies between
                    left = right;
                    length = 0;
                    live = 0;
                    cost = 0;
                }
            }
            length += p.length();
            live += p.victim() == null ? 0 : p.length();
            cost += p.cost();
            while (length - pieces.get(left).length() >= room) {
                Piece gone = pieces.get(left++);
                length -= gone.length();
                live -= gone.victim() == null ? 0 : gone.length();
                cost -= gone.cost();
            }
            if (length >= room) {
                Range r = new Range(cost, live, null);
                if (r.cheaperThan(best)) {
                    List<IndexEntry> victims = new ArrayList<>();
                    for (int i = left; i <= right; i++) {
                        if (pieces.get(i).victim() != null) {
                            victims.add(pieces.get(i).victim());
                        }
                    }
                    best = new Range(cost, live, victims);
                }
            }
        }
        return best;
    }
}
