package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.policy.costaware.CostAwarePolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * Reference policies that know the workload's future, which no real policy can: the benchmark
 * runs them beside the real ones to show what knowledge of reuse is worth inside this store
 * (its watermark, its 5% rounds, its contiguous allocation, its write-backs), where the fluid
 * FOO-L bound sees none of these. Never shipped, never a goal's yardstick for a policy.
 *
 * <ul>
 * <li>{@link Knowledge#HIDDEN_REUSE}: cost-aware, told exactly which hidden states will be read
 * again: those that will not go first, those that will go last (farthest next read first).
 * The reference's "hidden-state oracle".
 * <li>{@link Knowledge#EVERYTHING}: every object's next read and true cost: objects never read
 * again go first (largest first), then the least {@code cost / (size x accesses until the next
 * read)}, Belady's rule weighed by cost and size as PFOO ranks its intervals.
 * </ul>
 *
 * Its clock is the workload's operation count: {@link #accessed} is told each read before the
 * write-back that may call a round, and {@link #changed} each put or remove before it is served,
 * so "next read" means strictly after the operation served. A put or a remove of the key before
 * its next read ends the value's use: it will never be read again.
 */
final class FutureOracle implements EvictionPolicy, ForwardsLearning, Simulation.AccessObserver {
    enum Knowledge {
        HIDDEN_REUSE("oracle-hidden"), EVERYTHING("oracle-future");

        final String policyName;

        Knowledge(String policyName) {
            this.policyName = policyName;
        }
    }

    private static final int[] NEVER = new int[0];

    private final Knowledge knowledge;
    /** Each key's reads, as positions in the workload's operation order, ascending. */
    private final Map<String, int[]> uses;
    /** Each key's puts and removes, as positions in the same order, ascending; most keys have none. */
    private final Map<String, int[]> ends;
    private final Map<String, Double> costs;
    private final CostAwarePolicy costAware = new CostAwarePolicy();
    /** The access being served; -1 before the first. */
    private int position = -1;

    FutureOracle(Workload workload, Knowledge knowledge) {
        this.knowledge = knowledge;
        Map<String, List<Integer>> at = new HashMap<>();
        Map<String, List<Integer>> changedAt = new HashMap<>();
        this.costs = new HashMap<>();
        int p = 0;
        for (Request r : workload.requests()) {
            for (Access a : r.accesses()) {
                if (a.isRead()) {
                    at.computeIfAbsent(a.id(), k -> new ArrayList<>()).add(p);
                    costs.putIfAbsent(a.id(), a.costMs());
                } else {
                    changedAt.computeIfAbsent(a.id(), k -> new ArrayList<>()).add(p);
                }
                p++;
            }
        }
        this.uses = positions(at);
        this.ends = positions(changedAt);
    }

    private static Map<String, int[]> positions(Map<String, List<Integer>> lists) {
        Map<String, int[]> out = new HashMap<>(lists.size() * 2);
        lists.forEach((k, list) -> out.put(k, list.stream().mapToInt(Integer::intValue).toArray()));
        return out;
    }

    @Override
    public String name() {
        return knowledge.policyName;
    }

    /** Accesses from now until the key's next read, or {@link Integer#MAX_VALUE} when there is none. */
    int untilNextRead(String key) {
        int read = nextAfter(uses.getOrDefault(key, NEVER));
        return read == Integer.MAX_VALUE || nextAfter(ends.getOrDefault(key, NEVER)) < read ? Integer.MAX_VALUE
                : read - position;
    }

    /** The first of the ascending {@code at} after the operation served; {@link Integer#MAX_VALUE} when none. */
    private int nextAfter(int[] at) {
        int i = Arrays.binarySearch(at, position + 1);
        int next = i >= 0 ? i : -i - 1;
        return next < at.length ? at[next] : Integer.MAX_VALUE;
    }

    private static String id(CandidateView c) {
        return Access.id(c.key().tenant(), c.key().key());
    }

    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        return knowledge == Knowledge.EVERYTHING ? belady(request) : hiddenReuse(request);
    }

    private Iterator<CandidateView> belady(EvictionRequest request) {
        List<Ranked> ranked = new ArrayList<>();
        for (CandidateView c : eligible(request, null)) {
            int d = untilNextRead(id(c));
            // never read again: worth nothing, and the largest frees the most
            ranked.add(new Ranked(c, d == Integer.MAX_VALUE ? -c.sizeBytes()
                    : costs.getOrDefault(id(c), 0.0) / ((double) c.sizeBytes() * d)));
        }
        ranked.sort(Comparator.comparingDouble(Ranked::worth));
        return ranked.stream().map(Ranked::candidate).iterator();
    }

    private record Ranked(CandidateView candidate, double worth) {
    }

    private Iterator<CandidateView> hiddenReuse(EvictionRequest request) {
        List<CandidateView> hidden = eligible(request, ObjectDataType.HIDDEN_STATE);
        List<CandidateView> useless = new ArrayList<>();
        List<Ranked> needed = new ArrayList<>();
        for (CandidateView c : hidden) {
            int d = untilNextRead(id(c)); // once per candidate, not per comparison
            if (d == Integer.MAX_VALUE) {
                useless.add(c);
            } else {
                needed.add(new Ranked(c, -d)); // farthest next read first
            }
        }
        needed.sort(Comparator.comparingDouble(Ranked::worth));
        Iterator<CandidateView> ranked = costAware.plan(request);
        List<CandidateView> order = new ArrayList<>(useless);
        while (ranked.hasNext()) {
            CandidateView c = ranked.next();
            if (c.dataType() != ObjectDataType.HIDDEN_STATE) {
                order.add(c);
            }
        }
        needed.forEach(r -> order.add(r.candidate()));
        return order.iterator();
    }

    /** Every candidate this pass may take, of {@code type} or of every type when null. */
    private static List<CandidateView> eligible(EvictionRequest request, ObjectDataType type) {
        List<CandidateView> out = new ArrayList<>();
        for (CandidateGroup g : request.groups()) {
            if (type != null && g.dataType() != type) {
                continue;
            }
            for (Iterator<CandidateView> it = g.inLeaseOrder(); it.hasNext();) {
                CandidateView c = it.next();
                if (request.eligible(c)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    // ---- the workload's clock

    @Override
    public void accessed(Access access, boolean hit, long timeMs) {
        position++;
    }

    @Override
    public void changed(Access access, long timeMs) {
        position++;
    }

    /** Cost-aware learns as it would alone. */
    @Override
    public CostAwarePolicy learner() {
        return costAware;
    }
}
