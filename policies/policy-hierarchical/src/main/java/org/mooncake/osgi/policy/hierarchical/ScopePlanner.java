package org.mooncake.osgi.policy.hierarchical;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateRanking;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * One pass of the hierarchical policy, as a lazy plan:
 * <ol>
 * <li><b>Assign</b>: walking the tree from the root, every scope that holds more than its quota
 *     of capacity is given a share of the round: {@code ceil(evictable x min(target, over))}
 *     objects, where over = (resident - quota) / resident (the seed's budget rule, per scope).</li>
 * <li><b>Evict</b>: a scope fills its share first from the shares of its own over-quota
 *     children, then with its own candidates in ranking order.</li>
 * <li><b>Fallback</b>: the root covers what the shares left of the target, ranking all its
 *     candidates, soft-pinned ones after the rest (upstream's pass order).</li>
 * </ol>
 * Within a share, soft-pinned candidates (pass 2) compete on score, as in the seed's budget pass.
 * Lives for one pass on the eviction thread.
 */
final class ScopePlanner {
    /** A node of the tree: its path from the root, its groups, and, below a priority level, its pin state. */
    private record Scope(List<String> path, List<CandidateGroup> groups, String priority) {
    }

    /**
     * Where the root's pass 1 stopped in the last round (the score of the last candidate it
     * handed out), for the tree and ranking it ran with: the next round's root ranking streams
     * what scores above it (see {@link Candidates#rankedByScore(Iterator, ToDoubleFunction,
     * Comparator, int, double, java.util.function.DoubleConsumer)}). Eviction thread.
     */
    static final class LastStop {
        private double score = Double.POSITIVE_INFINITY;
        private ScopeTree tree;
        private CandidateRanking ranking;

        /** The cut for a round ranked by {@code ranking} in {@code tree}: none after a change of either. */
        double cutFor(ScopeTree t, CandidateRanking r) {
            if (t != tree || r != ranking) {
                tree = t;
                ranking = r;
                score = Double.POSITIVE_INFINITY;
            }
            return score;
        }

        /** Told each score handed out; the last one is the next round's cut. */
        void handedOut(double s) {
            score = s;
        }
    }

    private final ScopeTree tree;
    private final EvictionRequest request;
    private final CandidateRanking ranking;
    private final LastStop lastStop;
    private final ToDoubleFunction<CandidateView> score;
    private final Comparator<CandidateView> order;

    ScopePlanner(ScopeTree tree, EvictionRequest request, CandidateRanking ranking, LastStop lastStop) {
        this.tree = tree;
        this.request = request;
        this.ranking = ranking;
        this.lastStop = lastStop;
        this.score = tree.hasQuotas() ? oncePerCandidate(ranking.score(request)) : ranking.score(request);
        ToDoubleFunction<CandidateView> s = score;
        Comparator<CandidateView> tie = ranking.tieBreak();
        this.order = (a, b) -> {
            int c = Double.compare(s.applyAsDouble(b), s.applyAsDouble(a));
            return c != 0 ? c : tie.compare(a, b);
        };
    }

    /**
     * With quotas, a candidate of an over-quota scope is ranked twice in a pass, for its scope's
     * share and again by the root. A ranking may learn from what it scores (cost-aware counts
     * residents), so each candidate is scored once and its score remembered for the pass.
     */
    private static ToDoubleFunction<CandidateView> oncePerCandidate(ToDoubleFunction<CandidateView> score) {
        Map<CandidateView, Double> seen = new java.util.IdentityHashMap<>();
        return c -> seen.computeIfAbsent(c, score::applyAsDouble);
    }

    Iterator<CandidateView> plan() {
        Scope root = new Scope(List.of(), request.groups(), null);
        long now = request.nowMs();
        List<Iterator<CandidateView>> plan = new ArrayList<>();
        plan.add(assigned(root, 0));
        plan.add(ranked(root, c -> !c.softPinnedAt(now), lastStop));
        if (request.softPinnedAllowed()) {
            plan.add(ranked(root, c -> c.softPinnedAt(now), null));
        }
        return Candidates.concat(plan);
    }

    /** The shares of the over-quota scopes below {@code scope}, children in order. */
    private Iterator<CandidateView> assigned(Scope scope, int depth) {
        if (depth == tree.levels().size()) {
            return List.<CandidateView>of().iterator();
        }
        List<Iterator<CandidateView>> shares = new ArrayList<>();
        for (Scope child : split(scope, tree.levels().get(depth))) {
            double quota = tree.quotaOf(child.path());
            long share = Double.isNaN(quota) ? 0 : share(child, quota);
            if (share > 0) {
                shares.add(Candidates.limit(Candidates.concat(List.of(assigned(child, depth + 1), ranked(child, c -> true, null))),
                        share));
            } else {
                shares.add(assigned(child, depth + 1));
            }
        }
        return Candidates.concat(shares);
    }

    private List<Scope> split(Scope scope, ScopeLevel level) {
        if (level == ScopeLevel.PRIORITY) {
            List<Scope> out = new ArrayList<>();
            out.add(child(scope, ScopeLevel.UNPINNED, scope.groups()));
            if (request.softPinnedAllowed()) {
                out.add(child(scope, ScopeLevel.SOFT_PINNED, scope.groups()));
            }
            return out;
        }
        Map<String, List<CandidateGroup>> byValue = new LinkedHashMap<>();
        scope.groups().stream()
                .sorted(level == ScopeLevel.TYPE ? Comparator.comparing((CandidateGroup g) -> g.dataType().ordinal())
                        : Comparator.comparing(CandidateGroup::tenant))
                .forEach(g -> byValue.computeIfAbsent(level.of(g), v -> new ArrayList<>()).add(g));
        List<Scope> out = new ArrayList<>();
        byValue.forEach((value, groups) -> out.add(new Scope(append(scope.path(), value), groups, scope.priority())));
        return out;
    }

    private static Scope child(Scope parent, String priority, List<CandidateGroup> groups) {
        return new Scope(append(parent.path(), priority), groups, priority);
    }

    private static List<String> append(List<String> path, String value) {
        List<String> p = new ArrayList<>(path);
        p.add(value);
        return List.copyOf(p);
    }

    /** Objects the scope gives up first: 0 unless it holds more than {@code quota} of capacity. */
    private long share(Scope scope, double quota) {
        long now = request.nowMs();
        long resident = 0;
        long evictable = 0;
        if (scope.priority() == null) {
            for (CandidateGroup g : scope.groups()) {
                resident += g.bytes();
                evictable += g.evictableCount(now);
            }
        } else {
            // Pin state is per object, not per group: count by walking (only scopes with quotas pay this).
            for (CandidateGroup g : scope.groups()) {
                for (Iterator<CandidateView> it = g.inLeaseOrder(); it.hasNext();) {
                    CandidateView c = it.next();
                    if (ScopeLevel.priorityOf(c, now).equals(scope.priority())) {
                        resident += c.sizeBytes();
                        evictable += c.leasedAt(now) ? 0 : 1;
                    }
                }
            }
        }
        double budget = quota * request.capacityBytes();
        if (resident <= budget || resident == 0) {
            return 0;
        }
        double over = (resident - budget) / resident;
        return (long) Math.ceil(evictable * Math.min(request.targetFraction(), over));
    }

    /** The scope's eligible candidates that pass {@code keep}, in ranking order; streaming above {@code stop}'s cut if given. */
    private Iterator<CandidateView> ranked(Scope scope, Predicate<CandidateView> keep, LastStop stop) {
        long now = request.nowMs();
        Predicate<CandidateView> inScope = scope.priority() == null ? keep
                : keep.and(c -> ScopeLevel.priorityOf(c, now).equals(scope.priority()));
        List<Iterator<CandidateView>> sources = new ArrayList<>();
        for (CandidateGroup g : scope.groups()) {
            sources.add(Candidates.eligible(g, request, inScope));
        }
        if (ranking.monotoneInLease()) {
            return Candidates.merge(sources, order);
        }
        Iterator<CandidateView> leaseOrdered = Candidates.merge(sources, Candidates.LEASE_ORDER);
        if (stop == null) {
            return Candidates.rankedByScore(leaseOrdered, score, ranking.tieBreak(), tree.scanObjects());
        }
        return Candidates.rankedByScore(leaseOrdered, score, ranking.tieBreak(), tree.scanObjects(),
                stop.cutFor(tree, ranking), stop::handedOut);
    }
}
