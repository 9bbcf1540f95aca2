package org.mooncake.osgi.store.master.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

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

    private final StoreMaster master;
    private volatile long rounds;
    private volatile long lastRoundNanos;
    private volatile long totalRoundNanos;

    Evictor(StoreMaster master) {
        this.master = master;
    }

    long rounds() {
        return rounds;
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
        long used = segments.used();
        if (capacity == 0) {
            return 0;
        }
        MasterSettings cfg = master.settings();
        double usedRatio = (double) used / capacity;
        boolean shortage = master.takeSpaceShortage();
        if (usedRatio <= cfg.highWatermark() && !shortage) {
            return 0;
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
        long freed = pass(offer.policy(), 1, now, capacity, used, targetBytes, target);
        if (freed < lowerBytes && cfg.allowEvictSoftPinned()) {
            freed += pass(offer.policy(), 2, now, capacity, used - freed, targetBytes - freed, target);
        }
        long took = System.nanoTime() - start;
        lastRoundNanos = took;
        totalRoundNanos += took;
        rounds++;
        return freed;
    }

    private long pass(EvictionPolicy policy, int pass, long now, long capacity, long used, long targetBytes,
            double targetFraction) {
        EvictionRequest request = new EvictionRequest(now, pass, capacity, used, targetBytes, targetFraction,
                master.index.groups());
        FreeBatch victims = new FreeBatch();
        Unlinker unlinker = new Unlinker(master.index::unlink);
        try {
            Iterator<CandidateView> plan = policy.plan(request);
            while (victims.bytes < targetBytes && plan.hasNext()) {
                CandidateView v = plan.next();
                if (v instanceof IndexEntry e && request.eligible(v)) {
                    Version gone = master.evict(e, now, request.softPinnedAllowed());
                    if (gone != null) {
                        victims.add(gone);
                        unlinker.add(e);
                    }
                }
            }
        } catch (RuntimeException e) {
            // A failing policy costs this round, never the store.
            LOG.log(Level.ERROR, "eviction policy " + policy.name() + " failed in pass " + pass, e);
        } finally {
            victims.free();
            unlinker.close();
        }
        return victims.bytes;
    }

    /** Blocks of evicted versions, freed together per segment once the pass is over. */
    private static final class FreeBatch {
        private final Map<Segment, List<Replica>> bySegment = new HashMap<>();
        long bytes;

        void add(Version v) {
            for (Replica r : v.replicas()) {
                bySegment.computeIfAbsent(r.segment(), s -> new ArrayList<>()).add(r);
                bytes += OffsetAllocator.blockSize(r.size());
            }
        }

        void free() {
            bySegment.forEach((segment, blocks) -> {
                int n = blocks.size();
                long[] offsets = new long[n];
                long[] sizes = new long[n];
                for (int i = 0; i < n; i++) {
                    offsets[i] = blocks.get(i).offset();
                    sizes[i] = blocks.get(i).size();
                }
                segment.freeAll(offsets, sizes, n);
            });
        }
    }
}
