package org.mooncake.osgi.store.master.impl;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * Watermark eviction, upstream's two passes with byte targets: when use passes the high
 * watermark (or a put failed for space) it frees {@code max(ratio, used - hwm + ratio)} of
 * capacity; if pass 1 (no soft-pinned objects) frees less than the lower bound
 * {@code max(target / 2, used - hwm)}, pass 2 may take soft-pinned ones too.
 * Upstream counts objects; bytes are what fill a segment, so we count bytes.
 *
 * <p>Owned by one thread at a time (the master's scheduler); counters are read by any thread.
 */
final class Evictor {
    private static final System.Logger LOG = System.getLogger(Evictor.class.getName());
    /** Victims whose entries are read together before their claims (see {@link #touchAhead}). */
    private static final int LOOK_AHEAD = 16;
    /** Victims told to the observers at once (see {@link StoreMaster#evicted}). */
    private static final int TELL_BATCH = 1024;

    private final StoreMaster master;
    private volatile long rounds;
    @SuppressWarnings("unused")
    private long touched;
    private volatile long lastRoundNanos;
    private volatile long totalRoundNanos;
    private volatile long roomsMade;
    /**
     * The last pass's, whose purge (and its predecessors') may still be under way; read by any
     * thread in {@link #awaitPurged}.
     */
    private volatile Unlinker lastUnlinker;

    Evictor(StoreMaster master) {
        this.master = master;
    }

    long rounds() {
        return rounds;
    }

    /** Rounds that evicted a contiguous range for a put that found no room. */
    long roomsMade() {
        return roomsMade;
    }

    long lastRoundNanos() {
        return lastRoundNanos;
    }

    long totalRoundNanos() {
        return totalRoundNanos;
    }

    /** Returns the bytes freed; 0 when no round was needed. */
    long runRound() {
        Segments segments = master.segmentRegistry();
        long capacity = segments.capacity();
        if (capacity == 0) {
            return 0;
        }
        MasterSettings cfg = master.settings();
        long limited = cfg.hiddenState().any() ? limitHiddenStates(cfg, capacity) : 0;
        long used = segments.used();
        double usedRatio = (double) used / capacity;
        boolean shortage = master.takeSpaceShortage();
        if (usedRatio <= cfg.highWatermark() && !shortage) {
            return limited;
        }
        PolicySelector.Offer offer = master.policies().current();
        if (offer == null) {
            LOG.log(Level.WARNING, "store is {0}% full but no eviction policy is available", (int) (usedRatio * 100));
            return 0;
        }
        long start = System.nanoTime();
        double over = usedRatio - cfg.highWatermark();
        double target = Math.max(cfg.evictionRatio(), over + cfg.evictionRatio());
        double lower = Math.max(target / 2, over);
        long targetBytes = (long) Math.ceil(target * capacity);
        long lowerBytes = (long) Math.ceil(lower * capacity);
        long now = master.now();
        awaitPurged(); // the last round's: at most one round's purges are outstanding
        long freed = pass(offer.policy(), 1, now, capacity, used, targetBytes, target);
        if (freed < lowerBytes && cfg.allowEvictSoftPinned()) {
            freed += pass(offer.policy(), 2, now, capacity, used - freed, targetBytes - freed, target);
        }
        long room = master.takeRoomWanted();
        if (room > 0) {
            freed += makeRoom(offer.policy(), room, now, capacity, used - freed);
        }
        long took = System.nanoTime() - start;
        lastRoundNanos = took;
        totalRoundNanos += took;
        rounds++;
        return freed;
    }

    /**
     * Enforces the limits on HIDDEN_STATE objects, whatever the watermark: removes those idle past
     * their TTL, then evicts from each tenant over its share of capacity its least recently used
     * ones until it is back within. Both may take soft-pinned objects (a limit is not a
     * preference), never leased or hard-pinned ones. Their victims are evictions like any other:
     * counted, told to the observers, freed. Returns the bytes freed.
     */
    private long limitHiddenStates(MasterSettings cfg, long capacity) {
        long freed = 0;
        long now = master.now();
        MasterSettings.HiddenStateLimits limits = cfg.hiddenState();
        for (CandidateGroup g : master.index.groups()) {
            if (g.dataType() != ObjectDataType.HIDDEN_STATE || g.objectCount() == 0) {
                continue;
            }
            if (limits.ttlMs() > 0) {
                Iterator<CandidateView> idle = HiddenStatePlans.idleSince(g, now - limits.ttlMs(),
                        cfg.defaultLeaseTtlMs());
                if (idle.hasNext()) {
                    freed += limit("hidden-state TTL of tenant " + g.tenant(), now, capacity, Long.MAX_VALUE,
                            () -> idle);
                }
            }
            long over = HiddenStatePlans.overShare(g, limits.tenantShare(), capacity);
            if (over > 0) {
                freed += limit("hidden-state share of tenant " + g.tenant(), now, capacity, over, g::inLeaseOrder);
            }
        }
        return freed;
    }

    private long limit(String planner, long now, long capacity, long targetBytes,
            java.util.function.Supplier<Iterator<CandidateView>> plan) {
        awaitPurged();
        long used = master.segmentRegistry().used();
        EvictionRequest request = new EvictionRequest(now, 2, capacity, used, targetBytes,
                Math.min(1.0, (double) targetBytes / capacity), master.index.groups());
        long freed = take(planner, 2, request, plan);
        if (freed > 0) {
            LOG.log(Level.DEBUG, "{0}: {1} bytes evicted", planner, freed);
        }
        return freed;
    }

    private long pass(EvictionPolicy policy, int pass, long now, long capacity, long used, long targetBytes,
            double targetFraction) {
        EvictionRequest request = new EvictionRequest(now, pass, capacity, used, targetBytes, targetFraction,
                master.index.groups());
        return take(policy.name(), pass, request, () -> policy.plan(request));
    }

    /**
     * A put found no room for a block of {@code room} bytes: if no segment has that much free in
     * one piece after the round's passes, evicts the contiguous range {@link RoomMaker} picks.
     * Its victims are told to the policy's observers as any others.
     */
    private long makeRoom(EvictionPolicy policy, long room, long now, long capacity, long used) {
        for (Segment s : master.segmentRegistry().all()) {
            if (s.largestFreeExtent() >= room) {
                return 0;
            }
        }
        EvictionRequest request = new EvictionRequest(now, 1, capacity, used, room, (double) room / capacity,
                master.index.groups());
        List<IndexEntry> range = RoomMaker.cheapestRange(master.segmentRegistry().all(), request, room);
        if (range.isEmpty()) {
            return 0;
        }
        long freed = take(policy.name() + " (room for " + room + " bytes)", 1, request,
                () -> List.<CandidateView>copyOf(range).iterator());
        roomsMade++;
        return freed;
    }

    /** Claims the plan's victims until the request's target is freed, then frees, tells and purges them. */
    private long take(String planner, int pass, EvictionRequest request,
            java.util.function.Supplier<Iterator<CandidateView>> planned) {
        long now = request.nowMs();
        long targetBytes = request.targetBytes();
        FreeBatch blocks = new FreeBatch();
        EvictionTally tally = new EvictionTally();
        // purges after the round's earlier passes without holding this one up: a room's take,
        // which waited for the purge of the pass before it, fell from 4-11 ms to 2-7 (timed inside)
        Unlinker unlinker = new Unlinker(this::unlist, master.index::purge, lastUnlinker);
        lastUnlinker = unlinker;
        IndexEntry[] taken = new IndexEntry[TELL_BATCH];
        int told = 0;
        long freed = 0;
        try {
            Iterator<CandidateView> plan = planned.get();
            CandidateView[] ahead = new CandidateView[LOOK_AHEAD];
            while (freed < targetBytes) {
                int n = 0;
                while (n < LOOK_AHEAD && plan.hasNext()) {
                    ahead[n++] = plan.next();
                }
                if (n == 0) {
                    break;
                }
                touchAhead(ahead, n);
                for (int i = 0; i < n && freed < targetBytes; i++) {
                    if (ahead[i] instanceof IndexEntry e && request.eligible(e)
                            && master.evict(e, now, request.softPinnedAllowed())) {
                        freed += e.blockBytes();
                        tally.add(e);
                        blocks.add(e);
                        unlinker.add(e);
                        taken[told++] = e;
                        if (told == TELL_BATCH) {
                            told = 0; // first: an observer that throws is not told the batch twice
                            master.evicted(taken, TELL_BATCH, now);
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // A failing policy costs this round, never the store.
            LOG.log(Level.ERROR, "eviction policy " + planner + " failed in pass " + pass, e);
        } finally {
            try {
                master.evicted(taken, told, now);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "an eviction observer failed in pass " + pass, e);
            }
            unlinker.close(); // first: the victims' blocks leave the room search's listing before they are freed
            // (their purge from the lease order may still be under way: readers skip claimed entries)
            blocks.free();
            master.countEvictions(tally);
        }
        return freed;
    }

    /**
     * Takes a batch of claimed victims' blocks out of the room search's listing, on the {@link
     * Unlinker}'s thread beside the pass (a look-up each: about 60,000 a round at 10^6 objects,
     * which on the pass's own thread added 4–9 ms to it), where each victim's listing the pass
     * read with the entry in cache. Sorted by offset, so
     * that each chunk of the listing is walked once. The pass frees the blocks only after this is
     * done, so a block freed and listed anew at the same offset is never dropped.
     */
    private void unlist(Unlinker.Batch victims) {
        BySegment listed = new BySegment();
        for (int i = 0; i < victims.size(); i++) {
            if (victims.segments[i] != null) {
                listed.add(victims.segments[i], victims.offsets[i], 0);
            }
        }
        listed.forEach((segment, blocks) -> {
            Arrays.sort(blocks.offsets, 0, blocks.n);
            segment.evictable().removeAll(blocks.offsets, blocks.n);
        });
    }

    /**
     * Waits until the last pass's victims are out of the lease order too ({@link Unlinker}): the
     * round returns once they are out of the room search's listing and freed.
     */
    void awaitPurged() {
        Unlinker last = lastUnlinker;
        if (last != null) {
            last.awaitPurged();
        }
    }

    /**
     * Reads the next victims' entries before claiming any. In a store that has run a while, the
     * plan's victims lie all over the heap, and each claim waited for its own cache (and TLB)
     * miss, one victim after another: the claim's compare-and-set is a full fence, so the
     * processor could not start the next victim's load early. Loads issued together, before the
     * fences, overlap. An entry holds all that claiming, counting and freeing need (see
     * {@link IndexEntry}). Reading past the last victim the pass needs costs a few loads.
     */
    private void touchAhead(CandidateView[] ahead, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if (ahead[i] instanceof IndexEntry e) {
                // an entry spans two cache lines: the lease on one, the claim's state maybe on the other
                sum += e.leaseExpiresAtMs() + (e.published() ? 1 : 0);
            }
        }
        touched = sum; // kept, so that the loads are not optimised away
    }

    /** Blocks of evicted versions, freed together per segment once the pass is over. */
    private static final class FreeBatch {
        private final BySegment bySegment = new BySegment();

        void add(IndexEntry victim) {
            if (victim.replicaCount() == 1) {
                bySegment.add(victim.firstSegment, victim.firstOffset, victim.sizeBytes());
            } else {
                for (Replica r : victim.version.replicas()) {
                    bySegment.add(r.segment(), r.offset(), r.size());
                }
            }
        }

        void free() {
            bySegment.forEach((segment, blocks) -> segment.freeAll(blocks.offsets, blocks.sizes, blocks.n));
        }
    }

    /** Blocks grouped by segment; a run of blocks in one segment looks the map up once. */
    private static final class BySegment {
        private final Map<Segment, Blocks> blocks = new HashMap<>();
        private Segment lastSegment;
        private Blocks last;

        void add(Segment segment, long offset, long size) {
            if (segment != lastSegment) {
                lastSegment = segment;
                last = blocks.computeIfAbsent(segment, s -> new Blocks());
            }
            last.add(offset, size);
        }

        void forEach(java.util.function.BiConsumer<Segment, Blocks> action) {
            blocks.forEach(action);
        }
    }

    private static final class Blocks {
        long[] offsets = new long[256];
        long[] sizes = new long[256];
        int n;

        void add(long offset, long size) {
            if (n == offsets.length) {
                offsets = Arrays.copyOf(offsets, 2 * n);
                sizes = Arrays.copyOf(sizes, 2 * n);
            }
            offsets[n] = offset;
            sizes[n] = size;
            n++;
        }
    }
}
