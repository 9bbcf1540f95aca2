package org.mooncake.osgi.policy.hierarchical;

import java.lang.System.Logger.Level;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.mooncake.osgi.store.spi.eviction.CandidateRanking;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The Assign / Evict / Fallback executor over a configurable scope tree ({@link ScopePlanner}).
 * Leaf rankings are services ({@link CandidateRanking}), bound by name from any bundle; while the
 * configured one is missing, scopes are ranked in lease order and the description says so.
 * The type-aware policy is the one-level tree {@code levels=type, ranking=type-aware} with its
 * budgets as quotas.
 */
@Component(service = EvictionPolicy.class, configurationPid = HierarchicalPolicy.PID,
        property = {EvictionPolicy.NAME_PROPERTY + "=" + HierarchicalPolicy.NAME, "service.ranking:Integer=1"})
@Designate(ocd = HierarchicalConfig.class)
public final class HierarchicalPolicy implements EvictionPolicy {
    public static final String NAME = "hierarchical";
    public static final String PID = "org.mooncake.osgi.policy.hierarchical";
    private static final System.Logger LOG = System.getLogger(HierarchicalPolicy.class.getName());

    /** Lease order, always at hand so the policy never stops evicting for want of a ranking. */
    static final CandidateRanking LEASE = Candidates.LEASE_RANKING;

    private final Map<String, CandidateRanking> rankings = new ConcurrentHashMap<>();
    private volatile ScopeTree tree;
    private volatile String warnedMissing = "";
    /** Where the last round's root ranking stopped; planning runs on the eviction thread only. */
    private final ScopePlanner.LastStop lastStop = new ScopePlanner.LastStop();

    @Activate
    public HierarchicalPolicy(HierarchicalConfig config) {
        this(ScopeTree.from(config));
    }

    /** For tests and embedding: a fixed tree; add rankings with {@link #addRanking}. */
    HierarchicalPolicy(ScopeTree tree) {
        this.tree = tree;
    }

    /** Builds a tree from the same strings the configuration takes. */
    public static HierarchicalPolicy of(String[] levels, String ranking, String[] quotas) {
        return new HierarchicalPolicy(ScopeTree.parse(levels, ranking, quotas, 131_072));
    }

    @Modified
    void modified(HierarchicalConfig config) {
        tree = ScopeTree.from(config);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    public void addRanking(CandidateRanking ranking) {
        rankings.put(ranking.name(), ranking);
    }

    void removeRanking(CandidateRanking ranking) {
        rankings.remove(ranking.name(), ranking);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        ScopeTree t = tree;
        String missing = rankings.containsKey(t.ranking()) || t.ranking().equals(LEASE.name()) ? ""
                : " (ranking missing: lease order in use)";
        return NAME + " levels=" + t.levels().stream().map(ScopeLevel::label).toList() + " ranking=" + t.ranking()
                + missing + " quotas=" + t.describeQuotas();
    }

    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        ScopeTree t = tree;
        CandidateRanking ranking = rankings.get(t.ranking());
        if (ranking == null) {
            if (!t.ranking().equals(LEASE.name()) && !t.ranking().equals(warnedMissing)) {
                warnedMissing = t.ranking();
                LOG.log(Level.WARNING, "ranking {0} is not available: ranking scopes in lease order", t.ranking());
            }
            ranking = LEASE;
        }
        return new ScopePlanner(t, request, ranking, lastStop).plan();
    }
}
