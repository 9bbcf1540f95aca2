package org.mooncake.osgi.policy.leaselru;

import java.util.Iterator;
import java.util.function.ToDoubleFunction;

import org.mooncake.osgi.store.spi.eviction.CandidateRanking;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;
import org.osgi.service.component.annotations.Component;

/**
 * Upstream Mooncake's order: oldest lease first across every type and tenant; in pass 2 the
 * soft-pinned objects follow, again oldest lease first. Reads refresh leases, so this is LRU.
 * Stateless and thread-safe.
 */
@Component(service = {EvictionPolicy.class, CandidateRanking.class},
        property = {EvictionPolicy.NAME_PROPERTY + "=" + LeaseOrderPolicy.NAME,
                CandidateRanking.NAME_PROPERTY + "=" + LeaseOrderPolicy.RANKING, "service.ranking:Integer=0"})
public final class LeaseOrderPolicy implements EvictionPolicy, CandidateRanking {
    public static final String NAME = "lease-lru";
    /** The name of the ranking this bundle offers to composing policies. */
    public static final String RANKING = "lease";

    @Override
    public String name() {
        return NAME;
    }

    /** Time since the lease ended: the oldest lease first. */
    @Override
    public ToDoubleFunction<CandidateView> score(EvictionRequest request) {
        return Candidates.LEASE_RANKING.score(request);
    }

    @Override
    public boolean monotoneInLease() {
        return true;
    }

    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        return Candidates.unpinnedThenPinned(request, Candidates.LEASE_ORDER);
    }
}
