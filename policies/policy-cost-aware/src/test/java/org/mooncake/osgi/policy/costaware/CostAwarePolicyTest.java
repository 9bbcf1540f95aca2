package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;

class CostAwarePolicyTest {
    private static final long CAPACITY = 1L << 20;
    private static final int SIZE = 8192;

    /** The real master with the policy bound, on a clock the test moves. */
    private static final class Store implements InstantSource {
        final AtomicLong now = new AtomicLong(1_000_000);
        final StoreMaster master;

        Store(CostAwarePolicy policy) {
            PolicySelector selector = new PolicySelector();
            selector.add(new PolicySelector.Offer(policy, policy.name(), 0, 1));
            master = new StoreMaster(MasterSettings.DEFAULTS.withLeaseTtl(100), this, selector);
            master.heartbeat("c");
            master.mountSegment(new SegmentDescriptor("s", "c", CAPACITY, new SegmentEndpoint("local", "x", "s")));
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }

        @Override
        public long millis() {
            return now.get();
        }

        /** A read; on a miss the object is written back, as a cache in front of recompute does. */
        void access(String key, ReplicateConfig c) {
            try {
                master.getReplicaList(ObjectKey.of(key));
            } catch (StoreException miss) {
                try {
                    long id = master.putStart("c", ObjectKey.of(key), SIZE, c, false).putId();
                    master.putEnd("c", ObjectKey.of(key), id, 0);
                } catch (StoreException full) {
                    master.runEvictionRound();
                }
            }
            if (master.stats().usedRatio() > 0.9) {
                master.runEvictionRound();
            }
        }

        boolean has(String key) {
            return master.queryKey(ObjectKey.of(key)).isPresent();
        }
    }

    private static final ReplicateConfig KV = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
    private static final ReplicateConfig TENSOR = KV.toBuilder().dataType(ObjectDataType.TENSOR).build();

    /**
     * A loop of TENSOR objects read every 3 s amid a stream of KV objects read once: lease order
     * evicts the loop (its reads are older than the stream's), the cost-aware policy learns to keep it.
     */
    @Test
    void itLearnsWhichClassIsReadAgainAndKeepsIt() {
        Store s = new Store(new CostAwarePolicy());
        int loop = 40;
        int stream = 0;
        int loopHitsLate = 0;
        for (int round = 0; round < 60; round++) {
            for (int i = 0; i < loop; i++) {
                boolean hit = s.has("loop" + i);
                s.access("loop" + i, TENSOR);
                if (round >= 40 && hit) {
                    loopHitsLate++;
                }
                s.now.addAndGet(5);
            }
            for (int i = 0; i < 200; i++) {
                s.access("stream" + stream++, KV);
                s.now.addAndGet(14);
            }
        }
        // The cache holds ~115 objects, a 3 s reuse gap spans ~240 accesses: LRU would never hit the loop.
        assertTrue(loopHitsLate > 0.9 * loop * 20, "loop hits in the last 20 rounds: " + loopHitsLate);
    }

    @Test
    void withEqualReuseTheCostlierObjectsStay() {
        Store s = new Store(new CostAwarePolicy());
        ReplicateConfig cheap = KV.toBuilder().recomputeCostMs(1).build();
        ReplicateConfig dear = KV.toBuilder().recomputeCostMs(50).build();
        for (int i = 0; i < 120; i++) {
            s.access("dear" + i, dear);
            s.now.addAndGet(10);
            s.access("cheap" + i, cheap);
            s.now.addAndGet(10);
        }
        s.now.addAndGet(1_000);
        s.master.runEvictionRound();
        int dearLeft = 0;
        int cheapLeft = 0;
        for (int i = 0; i < 120; i++) {
            dearLeft += s.has("dear" + i) ? 1 : 0;
            cheapLeft += s.has("cheap" + i) ? 1 : 0;
        }
        assertTrue(dearLeft > cheapLeft, "dear " + dearLeft + " cheap " + cheapLeft);
    }

    @Test
    void aWriteBackOfAnEvictedKeyIsRecognised() {
        CostAwarePolicy p = new CostAwarePolicy();
        Store s = new Store(p);
        for (int i = 0; i < 200; i++) {
            s.access("k" + i, KV);
            s.now.addAndGet(10);
        }
        assertTrue(!s.has("k0"), "k0 should have been evicted");
        String removed = null;
        for (int i = 199; i > 100; i--) {
            if (s.has("k" + i)) {
                s.master.remove(ObjectKey.of("k" + i), true);
                removed = removed == null ? "k" + i : removed;
            }
        }
        int held = p.ghostsHeld();
        assertTrue(held > 0, "no evicted key was remembered");
        s.access("k0", KV);
        assertEquals(held - 1, p.ghostsHeld(), "the write-back of k0 did not take its ghost");
        s.access(removed, KV);
        assertEquals(held - 1, p.ghostsHeld(), "a removed key is no ghost");
    }

    @Test
    void badSettingsAreRefusedWithTheirName() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new CostAwareSettings(Map.of(), 0, 1, 1, 1, 4)).getMessage().contains("scan_objects"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostAwareSettings.parseCosts(new String[] {"KVCACHE:3"})).getMessage().contains("KVCACHE:3"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostAwareSettings.parseCosts(new String[] {"NOPE=3"})).getMessage().contains("NOPE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(
                Map.of(ObjectDataType.KVCACHE, -1.0), 4, 1, 1, 1, 4)).getMessage().contains("KVCACHE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(Map.of(), 4, 1, 1, 1, 1))
                .getMessage().contains("worth_resolution"));
        assertEquals(2.5, new CostAwareSettings(CostAwareSettings.parseCosts(new String[] {"HIDDEN_STATE = 2.5"}), 4, 1, 1, 1, 4)
                .costPerMiB(ObjectDataType.HIDDEN_STATE));
    }
}
