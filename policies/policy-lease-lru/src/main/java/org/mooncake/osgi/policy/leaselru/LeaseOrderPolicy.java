package org.mooncake.osgi.policy.leaselru;

import java.util.Iterator;

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
@Component(service = EvictionPolicy.class,
        property = {EvictionPolicy.NAME_PROPERTY + "=" + LeaseOrderPolicy.NAME, "service.ranking:Integer=0"})
public final class LeaseOrderPolicy implements EvictionPolicy {
    public static final String NAME = "lease-lru";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        return Candidates.unpinnedThenPinned(request, Candidates.LEASE_ORDER);
    }
}
