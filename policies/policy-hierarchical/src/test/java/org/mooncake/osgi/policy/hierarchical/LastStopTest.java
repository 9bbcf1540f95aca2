package org.mooncake.osgi.policy.hierarchical;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Comparator;
import java.util.function.ToDoubleFunction;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.eviction.CandidateRanking;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/** The root's cut is where its last round stopped, and is forgotten when the tree or its ranking changes. */
class LastStopTest {
    private static CandidateRanking ranking(String name) {
        return new CandidateRanking() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public ToDoubleFunction<CandidateView> score(EvictionRequest request) {
                return c -> 0;
            }

            @Override
            public Comparator<CandidateView> tieBreak() {
                return Candidates.LEASE_ORDER;
            }
        };
    }

    @Test
    void theCutIsTheLastScoreHandedOutForTheSameTreeAndRanking() {
        ScopePlanner.LastStop stop = new ScopePlanner.LastStop();
        ScopeTree tree = ScopeTree.parse(new String[] {"type"}, "cost-aware", new String[0], 131_072);
        CandidateRanking costAware = ranking("cost-aware");
        assertEquals(Double.POSITIVE_INFINITY, stop.cutFor(tree, costAware), "no cut before a first round");
        stop.handedOut(-3);
        stop.handedOut(-5);
        assertEquals(-5, stop.cutFor(tree, costAware), "the last score handed out");
        stop.handedOut(-5);
        assertEquals(Double.POSITIVE_INFINITY, stop.cutFor(tree, ranking("cost-aware")), "another ranking: no cut");
        stop.handedOut(-5);
        ScopeTree reconfigured = ScopeTree.parse(new String[] {"tenant", "type"}, "cost-aware", new String[0], 131_072);
        assertEquals(Double.POSITIVE_INFINITY, stop.cutFor(reconfigured, costAware), "another tree: no cut");
    }
}
