package org.mooncake.osgi.policy.leaselru;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
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
        List<Iterator<CandidateView>> unpinned = new ArrayList<>();
        List<Iterator<CandidateView>> pinned = new ArrayList<>();
        for (CandidateGroup g : request.groups()) {
            List<Iterator<CandidateView>> parts = Candidates.eligibleByPin(g, request);
            unpinned.add(parts.get(0));
            if (parts.size() > 1) {
                pinned.add(parts.get(1));
            }
        }
        return Candidates.concat(List.of(Candidates.merge(unpinned, Candidates.LEASE_ORDER),
                Candidates.merge(pinned, Candidates.LEASE_ORDER)));
    }
}
