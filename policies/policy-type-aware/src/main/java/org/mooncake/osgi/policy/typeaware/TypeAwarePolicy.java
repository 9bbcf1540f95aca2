package org.mooncake.osgi.policy.typeaware;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateRanking;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The seed's type-aware policy (Mooncake PR series #2743-#2746). Each candidate scores
 * {@code max(0, now - lease - grace) * w / reuse_scale} (w = soft_pin_weight when soft-pinned);
 * higher scores go first. A type over its budget first gives up
 * {@code ceil(evictable(type) * min(target, over_budget))} of its own highest scorers, where
 * over_budget = (resident - budget) / resident; then one global order fills the target.
 * In pass 2 soft-pinned candidates follow the others, as in the default order.
 *
 * <p>Within a group (one type) the score falls as the lease grows, so each group's lease-ordered
 * stream is already in score order and a lazy merge suffices: no full sort, no full scan.
 * Rules bind and unbind from any thread; each plan reads them once.
 */
@Component(service = {EvictionPolicy.class, CandidateRanking.class},
        property = {EvictionPolicy.NAME_PROPERTY + "=" + TypeAwarePolicy.NAME,
                CandidateRanking.NAME_PROPERTY + "=" + TypeAwarePolicy.NAME, "service.ranking:Integer=10"})
public final class TypeAwarePolicy implements EvictionPolicy, CandidateRanking {
    public static final String NAME = "type-aware";

    private final List<TypeRule> fixedRules;
    /** Read for their current rule at each round: a configuration changes its rule in place. */
    private final List<TypeRuleConfiguration> configuredRules = new CopyOnWriteArrayList<>();

    public TypeAwarePolicy() {
        this(List.of());
    }

    /** For tests and embedding: a policy with fixed rules. */
    public TypeAwarePolicy(List<TypeRule> rules) {
        fixedRules = List.copyOf(rules);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindRule(TypeRuleConfiguration configured) {
        configuredRules.add(configured);
    }

    void unbindRule(TypeRuleConfiguration configured) {
        configuredRules.remove(configured);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        StringBuilder b = new StringBuilder(NAME);
        for (TypeRule r : rules().values()) {
            if (!r.equals(TypeRule.defaults(r.type()))) {
                b.append(String.format(java.util.Locale.ROOT, "%n  %s reuse_scale=%s soft_pin_weight=%s eviction_grace_ms=%d budget_ratio=%s",
                        r.type(), r.reuseScale(), r.softPinWeight(), r.graceMs(), r.hasBudget() ? r.budgetRatio() : "none"));
            }
        }
        return b.toString();
    }

    /** The rule per type; the most recently bound wins when two name one type. */
    Map<ObjectDataType, TypeRule> rules() {
        Map<ObjectDataType, TypeRule> m = new EnumMap<>(ObjectDataType.class);
        for (ObjectDataType t : ObjectDataType.values()) {
            m.put(t, TypeRule.defaults(t));
        }
        for (TypeRule r : fixedRules) {
            m.put(r.type(), r);
        }
        for (TypeRuleConfiguration c : configuredRules) {
            TypeRule r = c.rule();
            m.put(r.type(), r);
        }
        return m;
    }

    /** The seed's adjusted age under the rules bound now; budgets are the policy's, not the ranking's. */
    @Override
    public ToDoubleFunction<CandidateView> score(EvictionRequest request) {
        TypeRule[] byOrdinal = rules().values().toArray(TypeRule[]::new);
        long now = request.nowMs();
        return c -> score(byOrdinal, c, now);
    }

    /** Within a group (one type, one rule) the adjusted age falls as the lease grows. */
    @Override
    public boolean monotoneInLease() {
        return true;
    }

    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        Map<ObjectDataType, TypeRule> rules = rules();
        TypeRule[] byOrdinal = rules.values().toArray(TypeRule[]::new);
        long now = request.nowMs();
        Comparator<CandidateView> byScore = (a, b) -> {
            int c = Double.compare(score(byOrdinal, a, now), score(byOrdinal, b, now));
            return c != 0 ? -c : Candidates.LEASE_ORDER.compare(a, b);
        };

        List<Iterator<CandidateView>> plan = new ArrayList<>();
        for (TypeRule rule : rules.values()) {
            if (rule.hasBudget()) {
                plan.add(overBudget(rule, request, byScore));
            }
        }
        plan.add(Candidates.unpinnedThenPinned(request, byScore));
        return Candidates.concat(plan);
    }

    private static double score(TypeRule[] rules, CandidateView c, long now) {
        return rules[c.dataType().ordinal()].score(now, c.leaseExpiresAtMs(), c.softPinnedAt(now));
    }

    /** The budget pass of one type: empty unless the type holds more than its share. */
    private static Iterator<CandidateView> overBudget(TypeRule rule, EvictionRequest request,
            Comparator<CandidateView> byScore) {
        List<CandidateGroup> groups = request.groups().stream().filter(g -> g.dataType() == rule.type()).toList();
        long resident = groups.stream().mapToLong(CandidateGroup::bytes).sum();
        double budget = rule.budgetRatio() * request.capacityBytes();
        if (resident <= budget || resident == 0) {
            return List.<CandidateView>of().iterator();
        }
        double overRatio = (resident - budget) / resident;
        long evictable = groups.stream().mapToLong(g -> g.evictableCount(request.nowMs())).sum();
        long quota = (long) Math.ceil(evictable * Math.min(request.targetFraction(), overRatio));
        List<Iterator<CandidateView>> sources = new ArrayList<>();
        for (CandidateGroup g : groups) {
            sources.addAll(Candidates.eligibleByPin(g, request));
        }
        return Candidates.limit(Candidates.merge(sources, byScore), quota);
    }
}
