package org.mooncake.osgi.policy.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.hierarchical.HierarchicalPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;

/** Assign, Evict and Fallback across tenants and types. */
class HierarchicalFallbackTest {
    private static final long CAPACITY = 1L << 20;
    private static final int SIZE = 8192;
    private static final ReplicateConfig KV = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
    private static final ReplicateConfig HIDDEN = KV.toBuilder().dataType(ObjectDataType.HIDDEN_STATE).build();

    private static int fill(VirtualStore s, String tenant, double upTo, ReplicateConfig c, int from) {
        return s.fill(tenant, upTo, SIZE, c, from);
    }

    private static int present(VirtualStore s, String tenant, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            n += s.has(new ObjectKey(tenant, "o" + i)) ? 1 : 0;
        }
        return n;
    }

    /** The seed's share rule: ceil(evictable x min(target, over)), over = (resident - quota) / resident. */
    private static long share(int objects, double targetFraction, double quota) {
        double resident = (double) objects * SIZE / CAPACITY;
        return (long) Math.ceil(objects * Math.min(targetFraction, (resident - quota) / resident));
    }

    private static double targetFraction(VirtualStore s) {
        return Math.max(0.05, (double) s.used() / CAPACITY - 0.90 + 0.05);
    }

    @Test
    void aTenantOverItsQuotaGivesUpItsShareBeforeOlderObjectsOfOthers() {
        VirtualStore s = new VirtualStore(CAPACITY, HierarchicalPolicy.of(new String[] {"tenant"}, "lease",
                new String[] {"tenant=acme=0.3"}));
        int othersEnd = fill(s, "zeta", 0.25, KV, 0);
        s.advance(10_000);
        int acmeEnd = fill(s, "acme", 0.95, KV, othersEnd);
        s.advance(60_000);
        double tf = targetFraction(s);
        long before = s.used();
        s.master.runEvictionRound();
        int acmeGone = (acmeEnd - othersEnd) - present(s, "acme", othersEnd, acmeEnd);
        int othersGone = othersEnd - present(s, "zeta", 0, othersEnd);
        // Lease order alone would take only zeta's older objects.
        assertEquals(share(acmeEnd - othersEnd, tf, 0.3), acmeGone, "acme's share");
        assertTrue(othersGone > 0 && before - s.used() >= tf * CAPACITY - SIZE, "the root did not fill the target");
        assertTrue(before - s.used() < tf * CAPACITY + SIZE, "evicted beyond the target");
    }

    @Test
    void theParentCoversWhatAChildCouldNot() {
        VirtualStore s = new VirtualStore(CAPACITY, HierarchicalPolicy.of(new String[] {"tenant"}, "lease",
                new String[] {"tenant=acme=0.1"}));
        int othersEnd = fill(s, "zeta", 0.45, KV, 0);
        s.advance(60_000);
        int acmeEnd = fill(s, "acme", 0.95, KV, othersEnd);
        // Every acme object is read now, so it is leased: acme cannot give up its share.
        for (int i = othersEnd; i < acmeEnd; i++) {
            assertTrue(s.get(new ObjectKey("acme", "o" + i)));
        }
        long before = s.used();
        s.master.runEvictionRound();
        assertEquals(acmeEnd - othersEnd, present(s, "acme", othersEnd, acmeEnd), "a leased object was evicted");
        assertTrue(before - s.used() >= 0.05 * CAPACITY, "the root did not cover the target from zeta");
    }

    @Test
    void aWildcardQuotaAppliesInEveryTenant() {
        VirtualStore s = new VirtualStore(CAPACITY, HierarchicalPolicy.of(new String[] {"tenant", "type"}, "lease",
                new String[] {"tenant=*/type=HIDDEN_STATE=0.05"}));
        int a = fill(s, "acme", 0.30, KV, 0);
        s.advance(60_000);
        int aHidden = fill(s, "acme", 0.60, HIDDEN, a);
        int zHidden = fill(s, "zeta", 0.95, HIDDEN, aHidden);
        s.advance(60_000);
        double tf = targetFraction(s);
        s.master.runEvictionRound();
        assertEquals(share(aHidden - a, tf, 0.05), aHidden - a - present(s, "acme", a, aHidden), "acme's hidden share");
        assertEquals(share(zHidden - aHidden, tf, 0.05), zHidden - aHidden - present(s, "zeta", aHidden, zHidden),
                "zeta's hidden share");
        assertTrue(present(s, "acme", 0, a) < a, "the root's fallback took nothing: shares alone met the target?");
    }

    @Test
    void itDescribesItsTreeAsConfigured() {
        HierarchicalPolicy p = HierarchicalPolicy.of(new String[] {"tenant", "type"}, "lease",
                new String[] {"tenant=*/type=hidden_state=0.12", "tenant=acme=0.5"});
        assertEquals("hierarchical levels=[tenant, type] ranking=lease quotas=[tenant=*/type=HIDDEN_STATE=0.12, tenant=acme=0.5]",
                p.describe());
    }

    @Test
    void aBrokenTreeIsRefusedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HierarchicalPolicy.of(
                new String[] {"tenant", "colour"}, "lease", new String[0])).getMessage().contains("colour"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HierarchicalPolicy.of(
                new String[] {"type", "type"}, "lease", new String[0])).getMessage().contains("twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HierarchicalPolicy.of(
                new String[] {"tenant", "type"}, "lease", new String[] {"type=KVCACHE=0.5"})).getMessage()
                .contains("step 1 must be tenant"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HierarchicalPolicy.of(
                new String[] {"tenant"}, "lease", new String[] {"tenant=acme=1.5"})).getMessage().contains("(0, 1]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HierarchicalPolicy.of(
                new String[] {"type"}, "lease", new String[] {"type=PICTURES=0.5"})).getMessage().contains("PICTURES"));
    }

    @Test
    void aMissingRankingFallsBackToLeaseOrderAndSaysSo() {
        HierarchicalPolicy p = HierarchicalPolicy.of(new String[] {"type"}, "no-such-ranking", new String[0]);
        VirtualStore s = new VirtualStore(CAPACITY, p);
        fill(s, "default", 0.95, KV, 0);
        s.advance(60_000);
        s.master.runEvictionRound();
        assertTrue(s.used() < 0.90 * CAPACITY, "the policy stopped evicting");
        assertTrue(!s.has("o0") && s.has("o" + 100), "not lease order");
        assertTrue(p.describe().contains("lease order in use"), p.describe());
    }

    /** A ranking may learn from what it scores (cost-aware counts residents): with quotas, once per candidate and pass. */
    @Test
    void withQuotasEveryCandidateIsScoredOncePerPass() {
        java.util.Map<ObjectKey, Integer> scored = new java.util.concurrent.ConcurrentHashMap<>();
        HierarchicalPolicy tree = HierarchicalPolicy.of(new String[] {"tenant"}, "counting", new String[] {"tenant=acme=0.3"});
        tree.addRanking(new org.mooncake.osgi.store.spi.eviction.CandidateRanking() {
            @Override
            public String name() {
                return "counting";
            }

            @Override
            public java.util.function.ToDoubleFunction<org.mooncake.osgi.store.spi.eviction.CandidateView> score(
                    org.mooncake.osgi.store.spi.eviction.EvictionRequest request) {
                return c -> {
                    scored.merge(c.key(), 1, Integer::sum);
                    return -c.leaseExpiresAtMs();
                };
            }
        });
        VirtualStore s = new VirtualStore(CAPACITY, tree);
        int othersEnd = fill(s, "zeta", 0.25, KV, 0);
        s.advance(10_000);
        fill(s, "acme", 0.95, KV, othersEnd);
        s.advance(60_000);
        s.master.runEvictionRound();
        assertTrue(scored.keySet().stream().anyMatch(k -> k.tenant().equals("acme")), "acme's share was ranked");
        assertTrue(scored.keySet().stream().anyMatch(k -> k.tenant().equals("zeta")), "the root ranked the rest");
        assertEquals(1, scored.values().stream().mapToInt(Integer::intValue).max().orElseThrow(), "scored twice");
    }
}
