package org.mooncake.osgi.policy.typeaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.SoftPinAction;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

class TypeAwarePolicyTest {
    private static final long CAPACITY = 4L << 20;

    /** A real master on its own clock with one policy and one segment. */
    private static final class Store implements InstantSource {
        final AtomicLong now = new AtomicLong(1_000_000);
        final StoreMaster master;

        Store(EvictionPolicy policy) {
            PolicySelector selector = new PolicySelector();
            selector.add(new PolicySelector.Offer(policy, policy.name(), 0, 1));
            master = new StoreMaster(MasterSettings.DEFAULTS, this, selector);
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

        void put(String key, long size, ReplicateConfig c) {
            long put1 = master.putStart("c", ObjectKey.of(key), size, c, false).putId();
            master.putEnd("c", ObjectKey.of(key), put1, 0);
        }

        boolean has(String key) {
            return master.queryKey(ObjectKey.of(key)).isPresent();
        }
    }

    /** Applies one random but seed-determined workload to a store. */
    private static TreeSet<String> run(EvictionPolicy policy, long seed) {
        Store s = new Store(policy);
        Random rnd = new Random(seed);
        ObjectDataType[] types = {ObjectDataType.KVCACHE, ObjectDataType.HIDDEN_STATE, ObjectDataType.TENSOR};
        TreeSet<String> evictedOverTime = new TreeSet<>();
        for (int i = 0; i < 3000; i++) {
            ReplicateConfig c = ReplicateConfig.builder().dataType(types[rnd.nextInt(types.length)])
                    .softPin(rnd.nextInt(10) == 0 ? SoftPinAction.ENABLE : SoftPinAction.PRESERVE)
                    .softPinTtlMs(1 + rnd.nextInt(60_000)).build();
            try {
                s.put("o" + i, 1 + rnd.nextInt(8192), c);
            } catch (RuntimeException full) {
                // the put failed for space: the next round answers it
            }
            if (rnd.nextInt(3) == 0) {
                String k = "o" + rnd.nextInt(i + 1);
                if (s.has(k) && s.master.queryKey(ObjectKey.of(k)).get().state().equals("COMPLETE")) {
                    s.master.getReplicaList(ObjectKey.of(k));
                }
            }
            s.now.addAndGet(rnd.nextInt(50));
            s.master.runEvictionRound();
            if (i % 100 == 99) {
                for (int j = 0; j <= i; j++) {
                    if (!s.has("o" + j)) {
                        evictedOverTime.add(i + ":" + j);
                    }
                }
            }
        }
        assertTrue(s.master.stats().evictionRounds() > 10, "the workload must evict to prove anything");
        return evictedOverTime;
    }

    @RepeatedTest(5)
    void withNoTypeConfiguredItEvictsExactlyWhatTheDefaultEvicts(RepetitionInfo rep) {
        long seed = 7919L * rep.getCurrentRepetition();
        assertEquals(run(new LeaseOrderPolicy(), seed), run(new TypeAwarePolicy(), seed));
    }

    @Test
    void aLargeReuseScaleKeepsATypeLonger() {
        Store s = new Store(new TypeAwarePolicy(List.of(new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 1, 0, Double.NaN))));
        ReplicateConfig hidden = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build();
        ReplicateConfig kv = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
        long block = CAPACITY / 100;
        for (int i = 0; i < 10; i++) {
            s.put("h" + i, block, hidden);
        }
        s.now.addAndGet(1000);
        for (int i = 0; i < 85; i++) {
            s.put("k" + i, block, kv);
        }
        s.now.addAndGet(1000);
        s.master.runEvictionRound();
        // hidden ages 2000/8 = 250 < KV ages 1000: KV goes first although hidden is older
        for (int i = 0; i < 10; i++) {
            assertTrue(s.has("h" + i));
        }
        assertFalse(s.has("k0"));
    }

    @Test
    void aTypeOverItsBudgetGivesUpObjectsFirst() {
        Store s = new Store(new TypeAwarePolicy(List.of(new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 0.5))));
        ReplicateConfig hidden = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build();
        ReplicateConfig kv = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
        int blocks = 128;
        long block = CAPACITY / blocks;
        for (int i = 0; i < 37; i++) {
            s.put("h" + i, block, hidden);
        }
        s.now.addAndGet(1000);
        for (int i = 0; i < 85; i++) {
            s.put("k" + i, block, kv);
        }
        s.master.runEvictionRound();
        double used = 122.0 / blocks;
        double target = Math.max(0.05, used - 0.90 + 0.05);
        long victims = (long) Math.ceil(target * blocks);
        // KV holds 85 blocks > its 64: it gives up ceil(85 * min(target, 21/85)) first, then the oldest (hidden) go
        long kvFirst = (long) Math.ceil(85 * Math.min(target, 21.0 / 85));
        assertEquals(9, kvFirst);
        long kvLeft = java.util.stream.IntStream.range(0, 85).filter(i -> s.has("k" + i)).count();
        long hiddenLeft = java.util.stream.IntStream.range(0, 37).filter(i -> s.has("h" + i)).count();
        assertEquals(85 - kvFirst, kvLeft);
        assertEquals(37 - (victims - kvFirst), hiddenLeft);
        assertTrue(s.has("k84") && !s.has("k0"), "KV's own oldest went");
    }

    @Test
    void describeListsOnlyConfiguredTypes() {
        String d = new TypeAwarePolicy(List.of(new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 1, 10_000, 0.12))).describe();
        assertTrue(d.startsWith("type-aware"), d);
        assertTrue(d.contains("HIDDEN_STATE reuse_scale=8.0 soft_pin_weight=1.0 eviction_grace_ms=10000 budget_ratio=0.12"), d);
        assertFalse(d.contains("KVCACHE"), d);
        assertEquals("type-aware", new TypeAwarePolicy().describe());
    }

    @Test
    void withinTheGraceAnObjectScoresZero() {
        TypeRule r = new TypeRule(ObjectDataType.HIDDEN_STATE, 2, 3, 1000, Double.NaN);
        assertEquals(0, r.score(5000, 4500, false));
        assertEquals(500, r.score(5000, 3000, false));
        assertEquals(1500, r.score(5000, 3000, true));
    }

    @Test
    void invalidRulesAreRefusedWithTheirPropertyNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new TypeRule(ObjectDataType.KVCACHE, 0, 1, 0, Double.NaN));
        assertTrue(e.getMessage().contains("reuse_scale"));
        assertThrows(IllegalArgumentException.class, () -> new TypeRule(ObjectDataType.KVCACHE, 1, -1, 0, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new TypeRule(ObjectDataType.KVCACHE, 1, 1, -5, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 1.5));
    }
}
