package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Collections;
import java.util.Iterator;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

class PolicySelectorTest {
    private static EvictionPolicy named(String name) {
        return new EvictionPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Iterator<CandidateView> plan(EvictionRequest request) {
                return Collections.emptyIterator();
            }
        };
    }

    @Test
    void aPreferredPolicyThatIsNotDeployedIsNamedAndTheHighestRankedPlans() {
        PolicySelector s = new PolicySelector();
        s.add(new PolicySelector.Offer(named("lease-lru"), "lease-lru", 0, 1));
        s.add(new PolicySelector.Offer(named("type-aware"), "type-aware", 10, 2));
        assertNull(s.preferredMissing(), "nothing preferred");

        s.prefer("cost-aware");
        assertEquals("cost-aware", s.preferredMissing());
        assertEquals("type-aware", s.current().name());

        s.add(new PolicySelector.Offer(named("cost-aware"), "cost-aware", 5, 3));
        assertNull(s.preferredMissing());
        assertEquals("cost-aware", s.current().name());
    }
}
