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

    private static TypeRuleConfiguration.Config rule(String type, double reuseScale) {
        return new TypeRuleConfiguration.Config() {
            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return TypeRuleConfiguration.Config.class;
            }

            @Override
            public String data_type() {
                return type;
            }

            @Override
            public double reuse_scale() {
                return reuseScale;
            }

            @Override
            public double soft_pin_weight() {
                return 1;
            }

            @Override
            public long eviction_grace_ms() {
                return 0;
            }

            @Override
            public double budget_ratio() {
                return -1;
            }
        };
    }

    @Test
    void aChangedRuleAppliesInPlaceAndABrokenChangeKeepsTheRuleItHad() {
        TypeRuleConfiguration configured = new TypeRuleConfiguration(rule("HIDDEN_STATE", 8));
        TypeAwarePolicy policy = new TypeAwarePolicy();
        policy.bindRule(configured);
        assertEquals(8, policy.rules().get(ObjectDataType.HIDDEN_STATE).reuseScale());

        configured.modified(rule("HIDDEN_STATE", 16));
        assertEquals(16, policy.rules().get(ObjectDataType.HIDDEN_STATE).reuseScale());

        var e = assertThrows(IllegalArgumentException.class, () -> configured.modified(rule("HIDDEN_STATE", 0)));
        assertTrue(e.getMessage().contains("reuse_scale"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> configured.modified(rule("NOPE", 2)));
        assertEquals(16, policy.rules().get(ObjectDataType.HIDDEN_STATE).reuseScale());

        policy.unbindRule(configured);
        assertEquals(TypeRule.defaults(ObjectDataType.HIDDEN_STATE), policy.rules().get(ObjectDataType.HIDDEN_STATE));
    }
}
