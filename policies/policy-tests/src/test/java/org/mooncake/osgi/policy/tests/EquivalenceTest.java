package org.mooncake.osgi.policy.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.policy.hierarchical.HierarchicalPolicy;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.policy.typeaware.TypeAwarePolicy;
import org.mooncake.osgi.policy.typeaware.TypeRule;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.SoftPinAction;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/**
 * Policies that must choose the same victims: the one-level tree and the type-aware policy it
 * expresses; a tree in lease order without quotas and the default. Each runs the same random
 * workload (tenants, types, soft pins, reads) and the surviving keys are compared after every round.
 */
class EquivalenceTest {
    private static final long CAPACITY = 2L << 20;
    private static final List<TypeRule> RULES = List.of(
            new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 2, 1_500, 0.12),
            new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 0.60),
            new TypeRule(ObjectDataType.TENSOR, 3, 0.5, 200, Double.NaN));

    /** The keys present after each of the workload's rounds, one set per round, concatenated. */
    private static List<TreeSet<String>> run(Supplier<EvictionPolicy> policy, long seed) {
        VirtualStore s = new VirtualStore(CAPACITY, policy.get());
        Random rnd = new Random(seed);
        ObjectDataType[] types = {ObjectDataType.KVCACHE, ObjectDataType.HIDDEN_STATE, ObjectDataType.TENSOR};
        String[] tenants = {"default", "acme", "zeta"};
        List<TreeSet<String>> history = new java.util.ArrayList<>();
        TreeSet<String> all = new TreeSet<>();
        for (int i = 0; i < 3000; i++) {
            ObjectKey key = new ObjectKey(tenants[rnd.nextInt(3)], "o" + i);
            ReplicateConfig c = ReplicateConfig.builder().dataType(types[rnd.nextInt(types.length)])
                    .softPin(rnd.nextInt(8) == 0 ? SoftPinAction.ENABLE : SoftPinAction.PRESERVE)
                    .softPinTtlMs(1 + rnd.nextInt(30_000)).build();
            try {
                s.put(key, 1 + rnd.nextInt(16_384), c);
                all.add(key.toString());
            } catch (RuntimeException full) {
                // the next round makes room
            }
            if (rnd.nextInt(3) == 0) {
                s.get(new ObjectKey(tenants[rnd.nextInt(3)], "o" + rnd.nextInt(i + 1)));
            }
            s.advance(rnd.nextInt(40));
            if (i % 25 == 24) {
                s.master.runEvictionRound();
                TreeSet<String> present = new TreeSet<>();
                for (String k : all) {
                    int slash = k.indexOf('/');
                    ObjectKey ok = slash < 0 ? ObjectKey.of(k) : new ObjectKey(k.substring(0, slash), k.substring(slash + 1));
                    if (s.has(ok)) {
                        present.add(k);
                    }
                }
                history.add(present);
            }
        }
        assertTrue(history.getLast().size() < all.size() / 2, "the workload hardly evicted: nothing was compared");
        return history;
    }

    private static void assertSameVictims(Supplier<EvictionPolicy> a, Supplier<EvictionPolicy> b, long seed) {
        List<TreeSet<String>> ra = run(a, seed);
        List<TreeSet<String>> rb = run(b, seed);
        for (int round = 0; round < ra.size(); round++) {
            assertEquals(ra.get(round), rb.get(round), "different objects survive round " + round);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15})
    void aOneLevelTreeIsTheTypeAwarePolicy(long seed) {
        assertSameVictims(() -> new TypeAwarePolicy(RULES), () -> Policies.typeAwareAsTree(RULES), seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {21, 22, 23})
    void aTreeInLeaseOrderWithoutQuotasIsTheDefault(long seed) {
        assertSameVictims(LeaseOrderPolicy::new,
                () -> HierarchicalPolicy.of(new String[] {"tenant", "type"}, "lease", new String[0]), seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {31, 32, 33, 34, 35})
    void theTypeAwarePolicyWithDefaultRulesIsTheDefault(long seed) {
        assertSameVictims(LeaseOrderPolicy::new, () -> new TypeAwarePolicy(List.of()), seed);
    }
}
