package org.mooncake.osgi.policy.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.typeaware.TypeAwarePolicy;
import org.mooncake.osgi.policy.typeaware.TypeRule;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;

/** The seed's type-aware scores and budgets, against the real master. */
class TypeAwareBehaviourTest {
    private static final long CAPACITY = 4L << 20;

    @Test
    void aLargeReuseScaleKeepsATypeLonger() {
        VirtualStore s = new VirtualStore(CAPACITY, new TypeAwarePolicy(List.of(new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 1, 0, Double.NaN))));
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
        VirtualStore s = new VirtualStore(CAPACITY, new TypeAwarePolicy(List.of(new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 0.5))));
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

}
