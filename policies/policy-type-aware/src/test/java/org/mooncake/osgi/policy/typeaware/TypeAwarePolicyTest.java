package org.mooncake.osgi.policy.typeaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;

/** Rules and descriptions; behaviour against the master is in policies/policy-tests. */
class TypeAwarePolicyTest {
    @Test
    void describeListsOnlyConfiguredTypes() {
        String d = new TypeAwarePolicy(List.of(new TypeRule(ObjectDataType.HIDDEN_STATE, 8, 1, 10_000, 0.12))).describe();
        assertTrue(d.startsWith("type-aware"), d);
        assertTrue(d.contains("HIDDEN_STATE reuse_scale=8.0 soft_pin_weight=1.0 eviction_grace_ms=10000 budget_ratio=0.12"), d);
        assertFalse(d.contains("KVCACHE"), d);
        assertEquals("type-aware", new TypeAwarePolicy().describe());
    }

    @Test
    void withinTheGraceAnObjectScoresZero() {
        TypeRule r = new TypeRule(ObjectDataType.HIDDEN_STATE, 2, 3, 1000, Double.NaN);
        assertEquals(0, r.score(5000, 4500, false));
        assertEquals(500, r.score(5000, 3000, false));
        assertEquals(1500, r.score(5000, 3000, true));
    }

    @Test
    void invalidRulesAreRefusedWithTheirPropertyNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new TypeRule(ObjectDataType.KVCACHE, 0, 1, 0, Double.NaN));
        assertTrue(e.getMessage().contains("reuse_scale"));
        assertThrows(IllegalArgumentException.class, () -> new TypeRule(ObjectDataType.KVCACHE, 1, -1, 0, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new TypeRule(ObjectDataType.KVCACHE, 1, 1, -5, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new TypeRule(ObjectDataType.KVCACHE, 1, 1, 0, 1.5));
    }
}
