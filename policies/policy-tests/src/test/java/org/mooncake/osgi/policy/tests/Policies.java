package org.mooncake.osgi.policy.tests;

import java.util.List;
import java.util.function.Supplier;

import org.mooncake.osgi.policy.costaware.CostAwarePolicy;
import org.mooncake.osgi.policy.hierarchical.HierarchicalPolicy;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.policy.typeaware.TypeAwarePolicy;
import org.mooncake.osgi.policy.typeaware.TypeRule;
import org.mooncake.osgi.policy.wtinylfu.WTinyLfuPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/** Every policy bundle, configured as an operator would run it; fresh instances per test. */
final class Policies {
    record Named(String label, Supplier<EvictionPolicy> make) {
        @Override
        public String toString() {
            return label;
        }
    }

    /** The seed's "balanced" configuration. */
    static final List<TypeRule> BALANCED = List.of(
            new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 1, 10_000, 0.12),
            new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 0.80));

    private Policies() {
    }

    static List<Named> all() {
        return List.of(
                new Named("lease-lru", LeaseOrderPolicy::new),
                new Named("type-aware balanced", () -> new TypeAwarePolicy(BALANCED)),
                new Named("hierarchical tenant/type/priority", () -> HierarchicalPolicy.of(
                        new String[] {"tenant", "type", "priority"}, "lease", new String[] {"tenant=*/type=HIDDEN_STATE=0.12"})),
                new Named("hierarchical cost-aware leaves", Policies::hierarchicalCostAware),
                new Named("cost-aware", CostAwarePolicy::new),
                new Named("w-tinylfu", WTinyLfuPolicy::new));
    }

    /** Policies that enforce a 12% budget on hidden states. */
    static List<Named> budgeted() {
        return List.of(
                new Named("type-aware balanced", () -> new TypeAwarePolicy(BALANCED)),
                new Named("hierarchical type quota", () -> HierarchicalPolicy.of(
                        new String[] {"type"}, "lease", new String[] {"type=HIDDEN_STATE=0.12"})));
    }

    static HierarchicalPolicy typeAwareAsTree(List<TypeRule> rules) {
        String[] quotas = rules.stream().filter(TypeRule::hasBudget)
                .map(r -> "type=" + r.type().name() + "=" + r.budgetRatio()).toArray(String[]::new);
        HierarchicalPolicy tree = HierarchicalPolicy.of(new String[] {"type"}, TypeAwarePolicy.NAME, quotas);
        tree.addRanking(new TypeAwarePolicy(rules));
        return tree;
    }

    private static HierarchicalPolicy hierarchicalCostAware() {
        HierarchicalPolicy tree = HierarchicalPolicy.of(new String[] {"tenant"}, CostAwarePolicy.NAME, new String[0]);
        tree.addRanking(new CostAwarePolicy());
        return tree;
    }
}
