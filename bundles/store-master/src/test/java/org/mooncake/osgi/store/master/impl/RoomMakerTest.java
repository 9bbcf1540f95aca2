package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.SoftPinAction;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/** The room search against a brute force over every range of every segment, on random stores. */
class RoomMakerTest {
    /** One piece of a segment: a free extent (no entry) or an evictable object's block. */
    private record Piece(long offset, long length, long cost, IndexEntry entry) {
    }

    /** The cheapest range's cost and bytes in use, and (not compared) where it ends and what it evicts. */
    private record Cost(long cost, long live, long end, Set<IndexEntry> victims) {
        Cost(long cost, long live) {
            this(cost, live, 0, Set.of());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Cost c && c.cost == cost && c.live == live;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(cost) * 31 + Long.hashCode(live);
        }
    }

    @RepeatedTest(50)
    void itFindsTheRangeThatCostsLeastAsABruteForceDoes() {
        SplittableRandom rnd = new SplittableRandom();
        MasterFixture f = randomStore(rnd, 1 + rnd.nextInt(3), 64 * 1024, 40 + rnd.nextInt(200), 2048, false);
        assertCheapest(f, 1024L * (1 + rnd.nextInt(24)));
    }

    /**
     * Thousands of blocks, cheap ones in runs among dear ones, so that the search skips the
     * chunks that cannot beat a cheap run and reads on after skips longer than a range.
     */
    @RepeatedTest(20)
    void itFindsItInLargeStoresWhereMostChunksAreSkipped() {
        SplittableRandom rnd = new SplittableRandom();
        MasterFixture f = randomStore(rnd, 1 + rnd.nextInt(2), 4 << 20, 20_000, 1536, true); // puts until full
        assertCheapest(f, 1024L * (192 + rnd.nextInt(320))); // ranges over a few chunks of about 100 KiB
    }

    /**
     * Every block the same size and cost, as seed600's KV blocks: many ranges tie, and the one
     * that ends first must win, wherever the search starts from.
     */
    @RepeatedTest(40)
    void ofRangesThatTieItTakesTheOneThatEndsFirst() {
        SplittableRandom rnd = new SplittableRandom();
        MasterFixture f = new MasterFixture();
        f.mount("c1", "s0", 4 << 20);
        ReplicateConfig sameCost = ReplicateConfig.builder().recomputeCostMs(1).build();
        for (int i = 0; i < 4096; i++) {
            f.put("o" + i, 1024, sameCost);
        }
        for (int i = 0; i < 4096; i++) {
            if (rnd.nextInt(10) == 0) {
                f.master.remove(k("o" + i), false);
            }
        }
        f.clock.advance(20_000);
        assertCheapest(f, 1024L * (64 + rnd.nextInt(960))); // up to eight chunks: the bounds are nearly tight
    }

    /**
     * A block listed for an owner that no longer has it there (here a hard-pinned object's,
     * listed by hand) looks free to take; the check of the chosen range finds it out, it ends
     * ranges, and the search runs again: the range chosen is the one a brute force finds.
     */
    @Test
    void aBlockThatIsNotWhatItsListingSaysEndsRangesAndTheSearchRunsAgain() {
        MasterFixture f = new MasterFixture();
        f.mount("c1", "s0", 64 * 1024);
        for (int i = 0; i < 64; i++) { // 1 KiB each; the middle sixteen cost nothing, the rest 10 ms
            boolean cheap = i >= 24 && i < 40;
            f.put("o" + i, 1024, ReplicateConfig.builder().recomputeCostMs(cheap ? 0 : 10).hardPin(i == 32).build());
        }
        f.clock.advance(20_000);
        Segment s = f.master.segmentRegistry().get("s0");
        ObjectMeta pinned = f.master.shardOf(k("o32")).objects.get(k("o32"));
        s.evictable().add(32 * 1024, 1024, 0, 0, pinned);
        long room = 12 * 1024;
        EvictionRequest request = new EvictionRequest(f.clock.millis(), 1, 1, 1, room, 0.1, f.master.index.groups());

        List<IndexEntry> chosen = RoomMaker.cheapestRange(List.of(s), request, room);

        Cost expected = bruteForce(List.of(s), request, room);
        assertEquals(new Cost(40_000, 12 * 1024), expected, "eight cheap blocks and four dear ones: o20 to o31");
        assertEquals(12, chosen.size());
        assertEquals(expected.cost(), chosen.stream().mapToLong(e -> micros(e.recomputeCostMs())).sum());
        assertTrue(chosen.stream().noneMatch(e -> e.key().equals(k("o32"))));
    }

    /**
     * Segments filled with objects of random sizes and cost hints, some replicated, hard or soft
     * pinned; then some removed (free extents), some leased (they break ranges), some leased ones
     * written anew (their old blocks wait for the lease, listed nowhere) and some puts left in
     * progress.
     */
    private static MasterFixture randomStore(SplittableRandom rnd, int segments, long segmentSize, int objects,
            int maxSize, boolean cheapRuns) {
        MasterFixture f = new MasterFixture();
        for (int s = 0; s < segments; s++) {
            f.mount("c" + s, "s" + s, segmentSize + rnd.nextInt(4) * 16 * 1024);
        }
        for (int i = 0; i < objects; i++) {
            double hint = rnd.nextInt(4) == 0 ? Double.NaN : rnd.nextInt(80) / 4.0;
            if (cheapRuns) { // one run of 600 puts in three is cheap, each cheaper than the one before (puts fill from the start)
                hint = i / 600 % 3 == 2 ? rnd.nextInt(8) / (4.0 * (1 + i / 1800)) : 10 + rnd.nextInt(40) / 4.0;
            }
            ReplicateConfig.Builder c = ReplicateConfig.builder().recomputeCostMs(hint);
            switch (rnd.nextInt(cheapRuns ? 400 : 12)) { // long runs need few blocks that may not go
                case 0 -> c.hardPin(true);
                case 1 -> c.softPin(SoftPinAction.ENABLE).softPinTtlMs(rnd.nextBoolean() ? 5_000 : 60_000);
                case 2 -> c.replicaCount(Math.min(2, segments));
                default -> { }
            }
            try {
                f.put("o" + i, 64 + rnd.nextInt(maxSize), c.build());
            } catch (StoreException full) {
                break;
            }
            f.clock.advance(1);
        }
        for (int i = 0; i < objects; i++) { // free extents between blocks
            if (rnd.nextInt(5) == 0 && f.master.queryKey(k("o" + i)).isPresent()) {
                f.master.remove(k("o" + i), false);
            }
        }
        f.clock.advance(20_000);
        for (int i = 0; i < objects; i++) {
            if (rnd.nextInt(cheapRuns ? 400 : 8) == 0 && f.master.queryKey(k("o" + i)).isPresent()) {
                f.master.getReplicaList(k("o" + i)); // leased blocks break ranges
                if (rnd.nextBoolean()) { // written anew: the old block waits for the lease to end
                    try {
                        f.master.putEnd("c1", k("o" + i), f.master.putStart("c1", k("o" + i), 64 + rnd.nextInt(maxSize),
                                ReplicateConfig.DEFAULT, true).putId(), 1);
                    } catch (StoreException full) {
                        // no room for the new version: the old one stays
                    }
                }
            }
        }
        for (int i = 0; i < 5; i++) { // puts in progress hold blocks no range may take
            try {
                f.master.putStart("c1", k("pending" + i), 64 + rnd.nextInt(maxSize), ReplicateConfig.DEFAULT, false);
            } catch (StoreException full) {
                break;
            }
        }
        return f;
    }

    private static void assertCheapest(MasterFixture f, long room) {
        EvictionRequest request = new EvictionRequest(f.clock.millis(), 1, 1, 1, room, 0.1, f.master.index.groups());

        List<IndexEntry> chosen = RoomMaker.cheapestRange(f.master.segmentRegistry().all(), request, room);

        Cost expected = bruteForce(f.master.segmentRegistry().all(), request, room);
        if (expected == null) {
            assertTrue(chosen.isEmpty(), "no range exists, yet one was chosen");
            return;
        }
        long cost = 0;
        long live = 0;
        for (IndexEntry e : chosen) {
            cost += micros(e.recomputeCostMs());
            live += OffsetAllocator.blockSize(e.sizeBytes());
        }
        assertEquals(expected.cost(), cost, "cost of the chosen range, in whole microseconds");
        assertEquals(expected.live(), live, "bytes in use of the chosen range");
        assertEquals(expected.victims(), Set.copyOf(chosen), "of ranges equal in both, the one that ends first");
    }

    /** A cost hint as the rule counts it: whole microseconds, none as 0. */
    private static long micros(double hintMs) {
        return Double.isNaN(hintMs) ? 0 : Math.round(Math.max(0, hintMs) * 1000);
    }

    /** Every window of every segment, each start extended until it is long enough. */
    private static Cost bruteForce(List<Segment> segments, EvictionRequest request, long room) {
        Cost best = null;
        for (Segment s : segments) {
            TreeMap<Long, Piece> pieces = new TreeMap<>();
            for (long[] free : s.freeExtents()) {
                pieces.put(free[0], new Piece(free[0], free[1], 0, null));
            }
            for (CandidateGroup g : request.groups()) {
                for (Iterator<CandidateView> it = g.inLeaseOrder(); it.hasNext();) {
                    if (it.next() instanceof IndexEntry e && e.firstSegment == s && e.replicaCount() == 1
                            && e.published() && request.eligible(e)) {
                        long hint = micros(e.recomputeCostMs());
                        pieces.put(e.firstOffset, new Piece(e.firstOffset, OffsetAllocator.blockSize(e.sizeBytes()),
                                hint, e));
                    }
                }
            }
            List<Piece> ordered = new ArrayList<>(pieces.values());
            Cost bestHere = null; // ties go to the range that ends first within a segment, else to the first segment
            for (int i = 0; i < ordered.size(); i++) {
                long length = 0;
                long live = 0;
                long cost = 0;
                for (int j = i; j < ordered.size(); j++) {
                    Piece p = ordered.get(j);
                    if (j > i && ordered.get(j - 1).offset() + ordered.get(j - 1).length() != p.offset()) {
                        break;
                    }
                    length += p.length();
                    live += p.entry() == null ? 0 : p.length();
                    cost += p.cost();
                    if (length >= room) {
                        Set<IndexEntry> victims = new HashSet<>();
                        ordered.subList(i, j + 1).stream().filter(q -> q.entry() != null).forEach(q -> victims.add(q.entry()));
                        Cost c = new Cost(cost, live, p.offset() + p.length(), victims);
                        if (bestHere == null || c.cost() < bestHere.cost()
                                || c.cost() == bestHere.cost() && (c.live() < bestHere.live()
                                        || c.live() == bestHere.live() && c.end() < bestHere.end())) {
                            bestHere = c;
                        }
                        break;
                    }
                }
            }
            if (bestHere != null && (best == null || bestHere.cost() < best.cost()
                    || bestHere.cost() == best.cost() && bestHere.live() < best.live())) {
                best = bestHere;
            }
        }
        return best;
    }
}
