package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * The plan's first pass streams candidates whose score is above that of the last candidate the
 * previous round's first pass handed out: the first round reads its whole scan before handing
 * out a victim, the next hands one out long before; a round that went past its scan leaves the
 * next without a cut.
 */
class StreamingPlanTest {
    /**
     * One group of KV blocks, one lease each, counting the candidates the plan has read. Their
     * worth comes in three steps by their cost hints: one in a hundred nearly free to recompute
     * (evicted first), half cheap, the rest dear.
     */
    private static final class CountingGroup implements CandidateGroup {
        final List<CandidateView> views = new ArrayList<>();
        int read;

        CountingGroup(int n) {
            for (int i = 0; i < n; i++) {
                double cost = i % 100 == 0 ? 1e-6 : i % 2 == 0 ? 1 : 1e6;
                views.add(new TestCandidate(ObjectKey.of("k" + i), i, ObjectDataType.KVCACHE, 1024, cost, i, 0, null, false));
            }
        }

        @Override
        public String tenant() {
            return "default";
        }

        @Override
        public ObjectDataType dataType() {
            return ObjectDataType.KVCACHE;
        }

        @Override
        public long objectCount() {
            return views.size();
        }

        @Override
        public long bytes() {
            return 1024L * views.size();
        }

        @Override
        public Iterator<CandidateView> inLeaseOrder() {
            Iterator<CandidateView> it = views.iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public CandidateView next() {
                    read++;
                    return it.next();
                }
            };
        }
    }

    private static EvictionRequest request(CountingGroup g) {
        return new EvictionRequest(1_000_000, 1, 1L << 30, 1L << 29, 1L << 20, 0.01, List.of(g));
    }

    /** Reads of the group before the plan hands out its first candidate, then takes {@code victims} in all. */
    private static int readBeforeFirst(CostAwarePolicy policy, CountingGroup g, int victims) {
        g.read = 0;
        Iterator<CandidateView> plan = policy.plan(request(g));
        plan.next();
        int before = g.read;
        for (int i = 1; i < victims; i++) {
            plan.next();
        }
        return before;
    }

    @Test
    void theSecondRoundStreamsWhatScoresAboveWhereTheFirstStopped() {
        CostAwarePolicy policy = new CostAwarePolicy();
        CountingGroup g = new CountingGroup(5000);
        // 50 nearly free ones, then 50 cheap: the round stops among the cheap
        assertEquals(5000, readBeforeFirst(policy, g, 100), "the first round ranks its whole scan first");
        // the nearly free ones score above that: the first (k0) goes once the next lease is read
        assertEquals(2, readBeforeFirst(policy, g, 100), "the next round streams");
    }

    @Test
    void aRoundThatWentPastItsScanLeavesTheNextWithoutACut() {
        CostAwareSettings s = CostAwareSettings.DEFAULTS;
        CostAwarePolicy policy = new CostAwarePolicy(new CostAwareSettings(s.defaultCostMsPerMiB(), 1000, s.halfLifeEvents(),
                s.ghostEntries(), s.priorEvents(), s.worthResolution(), s.groupEndQuantile(), s.groupOnlyReadAgainMax()));
        CountingGroup g = new CountingGroup(5000);
        readBeforeFirst(policy, g, 20); // the 10 nearly free ones in the scan, then 10 cheap
        assertEquals(2, readBeforeFirst(policy, g, 1500), "streams after a round that stopped inside its scan");
        assertEquals(1000, readBeforeFirst(policy, g, 10), "a round that went past its scan leaves no cut: the whole scan first");
    }
}
