package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.AccessObserver;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/** What a round tells a learning policy about its victims. */
class EvictionObserversTest {
    private static final int BLOCK = 1024;

    /** Lease order, recording the batches it is told; optionally failing on the first. */
    private static final class Recording implements EvictionPolicy, AccessObserver {
        final EvictionPolicy order = new LeaseOrderPolicy();
        final List<Integer> batches = new ArrayList<>();
        final List<ObjectKey> told = new ArrayList<>();
        final boolean failFirst;

        Recording(boolean failFirst) {
            this.failFirst = failFirst;
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public Iterator<CandidateView> plan(EvictionRequest request) {
            return order.plan(request);
        }

        @Override
        public void hit(CandidateView object, long previousAccessMs, long nowMs) {
        }

        @Override
        public void written(CandidateView object, long nowMs) {
        }

        @Override
        public void evicted(CandidateView object, long nowMs) {
            throw new AssertionError("a round tells its victims in batches");
        }

        @Override
        public void evicted(CandidateView[] victims, int count, long nowMs) {
            batches.add(count);
            for (int i = 0; i < count; i++) {
                told.add(victims[i].key());
            }
            if (failFirst && batches.size() == 1) {
                throw new IllegalStateException("an observer's bug");
            }
        }
    }

    private static MasterFixture filled(Recording policy, int objects, int capacityBlocks) {
        MasterFixture f = new MasterFixture(MasterSettings.DEFAULTS, policy);
        f.mount("c1", "s1", (long) capacityBlocks * BLOCK);
        for (int i = 0; i < objects; i++) {
            f.put("o" + i, BLOCK);
            f.clock.advance(1);
        }
        f.clock.advance(20_000); // past every lease
        return f;
    }

    @Test
    void aRoundTellsEveryVictimOnceInTheOrderItTookThemInBatches() {
        Recording policy = new Recording(false);
        MasterFixture f = filled(policy, 4_550, 5_000); // 91% full: the round takes 6%, 300 victims
        long before = f.master.stats().objects();
        f.master.runEvictionRound();
        long evicted = before - f.master.stats().objects();
        assertTrue(evicted > 0);
        assertEquals(evicted, policy.told.size(), "every victim told");
        assertEquals(evicted, new HashSet<>(policy.told).size(), "each once");
        for (int i = 0; i < evicted; i++) {
            assertEquals(ObjectKey.of("o" + i), policy.told.get(i), "in lease order, as taken");
            assertFalse(f.master.exists(ObjectKey.of("o" + i)));
        }
        assertEquals(evicted, policy.batches.stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void largeRoundsAreToldInSeveralBatches() {
        Recording policy = new Recording(false);
        MasterFixture f = filled(policy, 45_500, 50_000); // the round takes 3,000 victims
        f.master.runEvictionRound();
        assertTrue(policy.batches.size() >= 3, "batches: " + policy.batches);
        assertTrue(policy.batches.stream().allMatch(n -> n > 0 && n <= 1024), "batches: " + policy.batches);
        Set<ObjectKey> unique = new HashSet<>(policy.told);
        assertEquals(policy.told.size(), unique.size());
    }

    /**
     * A failing observer costs its pass the remaining victims, never the store: what was taken is
     * freed, purged and told once (a second pass may take more, and tells those).
     */
    @Test
    void anObserverThatFailsEndsItsPassCleanly() {
        Recording policy = new Recording(true);
        MasterFixture f = filled(policy, 45_500, 50_000);
        long used = f.master.stats().usedBytes();
        f.master.runEvictionRound();
        long freed = used - f.master.stats().usedBytes();
        assertEquals(1024, policy.batches.getFirst());
        assertEquals(policy.told.size(), new HashSet<>(policy.told).size(), "no victim told twice");
        assertEquals((long) policy.told.size() * BLOCK, freed, "every victim taken is freed and told");
        policy.told.forEach(k -> assertFalse(f.master.exists(k), k + " was told evicted"));
        LockFreeEvictionTest.assertIndexHoldsOnlyLiveEntries(f.master);
    }
}
