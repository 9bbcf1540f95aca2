package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.Iterator;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.SoftPinAction;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/** Watermark rounds with the default (lease order) policy: 100 blocks of 1 KiB. */
class EvictionTest {
    private static final int BLOCK = 1024;
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    EvictionTest() {
        f.mount("c1", "s1", 100 * BLOCK);
    }

    private void fill(int from, int to, ReplicateConfig config) {
        for (int i = from; i < to; i++) {
            f.put("o" + i, BLOCK, config);
            f.clock.advance(1);
        }
    }

    private long usedBlocks() {
        return m.stats().usedBytes() / BLOCK;
    }

    @Test
    void noRoundAtOrBelowTheHighWatermark() {
        fill(0, 90, ReplicateConfig.DEFAULT);
        m.runEvictionRound();
        assertEquals(90, usedBlocks());
        assertEquals(0, m.stats().evictionRounds());
    }

    @Test
    void aboveTheWatermarkTheOldestLeasesGoUntilTheTargetIsFreed() {
        fill(0, 95, ReplicateConfig.DEFAULT);
        // target = max(0.05, 0.95 - 0.90 + 0.05) = 10% of capacity
        m.runEvictionRound();
        assertEquals(85, usedBlocks());
        IntStream.range(0, 10).forEach(i -> assertFalse(m.exists(k("o" + i)), "o" + i));
        assertTrue(m.exists(k("o10")));
        assertEquals(1, m.stats().evictionRounds());
        assertEquals(10, m.stats().types().stream().mapToLong(t -> t.evictions()).sum());
    }

    /** An evicted object is left vacant in its shard's table: to every call it must be simply gone. */
    @Test
    void anEvictedKeyIsGoneEverywhereAndCanBePutAfresh() {
        ReplicateConfig pinned = ReplicateConfig.builder().softPin(SoftPinAction.ENABLE).softPinTtlMs(60_000).build();
        fill(0, 1, pinned);
        fill(1, 95, ReplicateConfig.DEFAULT);
        f.clock.advance(61_000); // o0's pin has lapsed: it goes first
        m.runEvictionRound();
        assertFalse(m.exists(k("o0")));
        StoreException miss = org.junit.jupiter.api.Assertions.assertThrows(StoreException.class,
                () -> m.getReplicaList(k("o0")));
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, miss.errorCode());
        assertEquals(0, m.removeByRegex("default", java.util.regex.Pattern.compile("o[0-9]"), true),
                "o0..o9 are gone, so nothing matches");
        f.put("o0", BLOCK, ReplicateConfig.builder().softPin(SoftPinAction.PRESERVE).build());
        assertTrue(m.exists(k("o0")));
        assertEquals(0, view("o0").softPinDeadlineMs(), "a new object: nothing of the evicted one carries over");
    }

    @Test
    void readsRefreshLeasesSoRecentlyReadObjectsStay() {
        fill(0, 95, ReplicateConfig.DEFAULT);
        m.getReplicaList(k("o0"));
        f.clock.advance(10_001);
        m.runEvictionRound();
        assertTrue(m.exists(k("o0")));
        assertFalse(m.exists(k("o10")));
    }

    @Test
    void leasedAndHardPinnedObjectsAreNeverEvicted() {
        fill(0, 40, ReplicateConfig.builder().hardPin(true).build());
        fill(40, 95, ReplicateConfig.DEFAULT);
        IntStream.range(40, 95).forEach(i -> m.getReplicaList(k("o" + i)));
        m.runEvictionRound();
        assertEquals(95, usedBlocks(), "everything is pinned or leased");
        f.clock.advance(10_000);
        m.runEvictionRound();
        assertEquals(85, usedBlocks());
        IntStream.range(0, 40).forEach(i -> assertTrue(m.exists(k("o" + i))));
    }

    @Test
    void softPinnedObjectsGoOnlyInPassTwoAndOnlyWhenAllowed() {
        ReplicateConfig pinned = ReplicateConfig.builder().softPin(SoftPinAction.ENABLE).build();
        fill(0, 50, pinned);
        fill(50, 95, ReplicateConfig.DEFAULT);
        IntStream.range(50, 92).forEach(i -> m.getReplicaList(k("o" + i)));
        // 3 unpinned evictable: pass 1 frees 3 blocks < lower bound 5, so pass 2 takes pinned ones
        m.runEvictionRound();
        assertEquals(85, usedBlocks());
        IntStream.range(92, 95).forEach(i -> assertFalse(m.exists(k("o" + i))));
        IntStream.range(0, 7).forEach(i -> assertFalse(m.exists(k("o" + i)), "oldest pinned first"));

        MasterFixture strict = new MasterFixture(MasterSettings.DEFAULTS.withSoftPinnedEvictable(false));
        strict.mount("c1", "s1", 100 * BLOCK);
        for (int i = 0; i < 95; i++) {
            strict.put("p" + i, BLOCK, pinned);
        }
        strict.master.runEvictionRound();
        assertEquals(95 * BLOCK, strict.master.stats().usedBytes());
    }

    @Test
    void aFailedPutTriggersARoundBelowTheWatermarkThatMakesItRoom() {
        fill(0, 80, ReplicateConfig.DEFAULT);
        StoreException e = org.junit.jupiter.api.Assertions.assertThrows(StoreException.class,
                () -> m.putStart("c1", k("big"), 30 * BLOCK, ReplicateConfig.DEFAULT, false));
        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE, e.errorCode());
        m.runEvictionRound();
        // eviction_ratio of capacity from the front (the oldest), then the 10 blocks before the
        // free 20 at the end: the range with the fewest objects to lose (RoomForLargePutTest)
        assertEquals(65, usedBlocks());
        m.runEvictionRound();
        assertEquals(65, usedBlocks(), "the shortage was answered once");
        m.putStart("c1", k("big"), 30 * BLOCK, ReplicateConfig.DEFAULT, false);
    }

    @Test
    void withoutAPolicyNothingIsEvictedAndNothingBreaks() {
        MasterFixture bare = new MasterFixture(MasterSettings.DEFAULTS, null);
        bare.mount("c1", "s1", 100 * BLOCK);
        for (int i = 0; i < 95; i++) {
            bare.put("o" + i, BLOCK);
        }
        bare.master.runEvictionRound();
        assertEquals(95 * BLOCK, bare.master.stats().usedBytes());
        assertEquals("none", bare.master.stats().activePolicy());
    }

    @Test
    void aFailingPolicyCostsTheRoundNotTheStore() {
        EvictionPolicy broken = new EvictionPolicy() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public Iterator<CandidateView> plan(EvictionRequest request) {
                throw new IllegalStateException("boom");
            }
        };
        MasterFixture bad = new MasterFixture(MasterSettings.DEFAULTS, broken);
        bad.mount("c1", "s1", 100 * BLOCK);
        for (int i = 0; i < 95; i++) {
            bad.put("o" + i, BLOCK);
        }
        bad.master.runEvictionRound();
        assertEquals(95, bad.master.stats().objects());
        assertTrue(bad.master.exists(k("o0")));
    }

    @Test
    void aPolicyCannotEvictWhatThePassForbids() {
        // A policy that plans every candidate, leased or pinned: the master re-validates.
        EvictionPolicy greedy = new EvictionPolicy() {
            @Override
            public String name() {
                return "greedy";
            }

            @Override
            public Iterator<CandidateView> plan(EvictionRequest request) {
                return request.groups().stream().flatMap(g -> {
                    Iterable<CandidateView> it = g::inLeaseOrder;
                    return java.util.stream.StreamSupport.stream(it.spliterator(), false);
                }).iterator();
            }
        };
        MasterFixture g = new MasterFixture(MasterSettings.DEFAULTS.withSoftPinnedEvictable(false), greedy);
        g.mount("c1", "s1", 100 * BLOCK);
        for (int i = 0; i < 95; i++) {
            g.put("o" + i, BLOCK, ReplicateConfig.builder().softPin(SoftPinAction.ENABLE).build());
            g.master.getReplicaList(k("o" + i));
        }
        g.master.runEvictionRound();
        assertEquals(95, g.master.stats().objects());
    }

    /** Policies plan over snapshots; a read that cannot extend the lease (a shorter TTL now) still renews it. */
    @Test
    void aCandidateViewShowsEveryReadEvenOneThatDoesNotExtendTheLease() {
        f.put("x", BLOCK);
        f.clock.advance(5);
        m.getReplicaList(k("x")); // lease: now + 10 s
        long leaseAfterFirstRead = view("x").leaseExpiresAtMs();
        m.update(MasterSettings.DEFAULTS.withLeaseTtl(1_000));
        f.clock.advance(5);
        m.getReplicaList(k("x")); // now + 1 s is earlier: the lease stays
        CandidateView v = view("x");
        assertEquals(leaseAfterFirstRead, v.leaseExpiresAtMs(), "a lease only extends");
        assertEquals(2, v.hitCount());
        assertEquals(f.clock.millis(), v.lastAccessMs());
    }

    private CandidateView view(String key) {
        for (var g : m.index.groups()) {
            for (Iterator<CandidateView> it = g.inLeaseOrder(); it.hasNext();) {
                CandidateView c = it.next();
                if (c.key().equals(k(key))) {
                    return c;
                }
            }
        }
        throw new AssertionError(key + " is not a candidate");
    }

    /** A victim's every copy is freed, on each segment, and its space can be put again. */
    @Test
    void aRoundFreesEveryCopyOfAReplicatedVictim() {
        MasterFixture two = new MasterFixture();
        two.mount("c1", "a", 100 * BLOCK);
        two.mount("c1", "b", 100 * BLOCK);
        ReplicateConfig twice = ReplicateConfig.builder().replicaCount(2).build();
        for (int i = 0; i < 95; i++) {
            two.put("o" + i, BLOCK, twice);
            two.clock.advance(1);
        }
        two.master.runEvictionRound();
        assertEquals(2 * 85L * BLOCK, two.master.stats().usedBytes(), "10 objects, 2 copies each");
        two.master.segments().forEach(s -> assertEquals(85L * BLOCK, s.usedBytes(), s.name()));
        for (int i = 95; i < 105; i++) {
            two.put("o" + i, BLOCK, twice); // fits only if both copies of each victim were freed
        }
        assertEquals(2 * 95L * BLOCK, two.master.stats().usedBytes());
    }

    /** Counted once per pass: the index's groups and the per-type figures agree with what is left. */
    @Test
    void aRoundCountsItsVictimsPerTypeAndPerIndexGroup() {
        ReplicateConfig hidden = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build();
        for (int i = 0; i < 95; i++) {
            ObjectKey key = new ObjectKey(i % 2 == 0 ? "t0" : "t1", "o" + i);
            long put = m.putStart("c1", key, BLOCK, i % 3 == 0 ? hidden : ReplicateConfig.DEFAULT, false).putId();
            m.putEnd("c1", key, put, 0);
            f.clock.advance(1);
        }
        m.runEvictionRound();
        long evicted = m.stats().types().stream().mapToLong(t -> t.evictions()).sum();
        assertEquals(10, evicted);
        assertEquals(85, m.stats().types().stream().mapToLong(t -> t.objects()).sum());
        assertEquals(85L * BLOCK, m.stats().types().stream().mapToLong(t -> t.bytes()).sum());
        assertEquals(4, m.index.groups().size(), "two tenants times two types");
        LockFreeEvictionTest.assertIndexHoldsOnlyLiveEntries(m);
        assertEquals(85, m.index.groups().stream().mapToLong(g -> g.objectCount()).sum());
        assertEquals(85L * BLOCK, m.index.groups().stream().mapToLong(g -> g.bytes()).sum());
    }
}
