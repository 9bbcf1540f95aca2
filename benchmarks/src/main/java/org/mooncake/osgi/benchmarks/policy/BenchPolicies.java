package org.mooncake.osgi.benchmarks.policy;

import java.util.Iterator;
import java.util.List;

import org.mooncake.osgi.policy.costaware.CostAwarePolicy;
import org.mooncake.osgi.policy.hierarchical.HierarchicalPolicy;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.policy.typeaware.TypeAwarePolicy;
import org.mooncake.osgi.policy.typeaware.TypeRule;
import org.mooncake.osgi.policy.wtinylfu.WTinyLfuPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/** The policies compared, each configured once for every workload; a fresh instance per run. */
public final class BenchPolicies {
    public static final String DEFAULT = "lease-lru";
    public static final String BALANCED = "type-aware";
    public static final String HIERARCHICAL = "hierarchical";
    public static final String COST_AWARE = "cost-aware";
    /** Caffeine's W-TinyLFU, the well-known reference a new idea must beat where nobody tuned. */
    public static final String W_TINYLFU = "w-tinylfu";
    public static final List<String> ALL = List.of(DEFAULT, BALANCED, HIERARCHICAL, COST_AWARE, W_TINYLFU);
    /**
     * References that know the future ({@link FutureOracle}): run on seed600 beside the policies
     * to show what knowing reuse is worth in this store; never a policy, never a goal.
     */
    public static final List<String> ORACLES = List.of(FutureOracle.Knowledge.HIDDEN_REUSE.policyName,
            FutureOracle.Knowledge.EVERYTHING.policyName);

    private BenchPolicies() {
    }

    public static EvictionPolicy make(String name) {
        return switch (name) {
            case DEFAULT -> new LeaseOrderPolicy();
            // The seed's "balanced" configuration, as is.
            case BALANCED -> new TypeAwarePolicy(List.of(
                    new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 1, 10_000, 0.12),
                    new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 0.80)));
            // Tenant -> type scopes without quotas, cost-aware leaves: what an operator gets by
            // putting our ranking under the tree (with one tenant it should track cost-aware).
            case HIERARCHICAL -> {
                HierarchicalPolicy tree = HierarchicalPolicy.of(new String[] {"tenant", "type"}, CostAwarePolicy.NAME,
                        new String[0]);
                CostAwarePolicy ranking = new CostAwarePolicy();
                tree.addRanking(ranking);
                yield new Observed(tree, ranking);
            }
            case COST_AWARE -> new CostAwarePolicy();
            case W_TINYLFU -> new WTinyLfuPolicy();
            default -> throw new IllegalArgumentException("unknown policy " + name + "; one of " + ALL);
        };
    }

    /** A fresh oracle for {@code workload}; it must also be the run's {@link Simulation.AccessObserver}. */
    static FutureOracle oracle(String name, Workload workload) {
        for (FutureOracle.Knowledge k : FutureOracle.Knowledge.values()) {
            if (k.policyName.equals(name)) {
                return new FutureOracle(workload, k);
            }
        }
        throw new IllegalArgumentException("unknown oracle " + name + "; one of " + ORACLES);
    }

    /**
     * A tree whose ranking learns: in a container the ranking's own policy service is bound and
     * observed; here the tree forwards the master's events to it.
     */
    private record Observed(HierarchicalPolicy tree, CostAwarePolicy learner) implements EvictionPolicy, ForwardsLearning {
        @Override
        public String name() {
            return tree.name();
        }

        @Override
        public Iterator<CandidateView> plan(EvictionRequest request) {
            return tree.plan(request);
        }
    }
}
