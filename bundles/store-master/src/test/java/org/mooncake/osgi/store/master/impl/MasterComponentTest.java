package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.StoreException;

/** Configuration handling of the DS component: bad values are refused, the store keeps running. */
class MasterComponentTest {

    /** A configuration with defaults except the given ratio and watermark. */
    private static MasterComponent.Config config(double ratio, double watermark, String policy) {
        return new MasterComponent.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return MasterComponent.Config.class;
            }

            @Override
            public long kv_lease_ttl_ms() {
                return 10_000;
            }

            @Override
            public long kv_soft_pin_ttl_ms() {
                return 1_800_000;
            }

            @Override
            public long max_kv_soft_pin_ttl_ms() {
                return 86_400_000;
            }

            @Override
            public boolean allow_evict_soft_pinned_objects() {
                return true;
            }

            @Override
            public double eviction_ratio() {
                return ratio;
            }

            @Override
            public double eviction_high_watermark_ratio() {
                return watermark;
            }

            @Override
            public long eviction_interval_ms() {
                return 10;
            }

            @Override
            public long client_ttl_ms() {
                return 10_000;
            }

            @Override
            public long put_start_discard_timeout_ms() {
                return 30_000;
            }

            @Override
            public long put_start_release_timeout_ms() {
                return 600_000;
            }

            @Override
            public AllocationStrategy allocation_strategy() {
                return AllocationStrategy.RANDOM;
            }

            @Override
            public long hidden_state_ttl_ms() {
                return 0;
            }

            @Override
            public double hidden_state_tenant_share_max() {
                return 1.0;
            }

            @Override
            public int shards() {
                return 64;
            }

            @Override
            public String eviction_policy() {
                return policy;
            }
        };
    }

    @Test
    void aBadValueIsNamedAndRefusedAndTheRunningSettingsStay() {
        StoreException e = org.junit.jupiter.api.Assertions.assertThrows(StoreException.class,
                () -> MasterComponent.toSettings(config(1.5, 0.9, "")));
        assertTrue(e.getMessage().contains("eviction.ratio"), e.getMessage());

        MasterComponent c = new MasterComponent(config(0.1, 0.8, ""));
        try {
            c.modified(config(0.05, 7.0, "type-aware"));
            assertEquals("none", c.stats().activePolicy(), "the rejected update did not select a policy either");
            c.bindPolicy(new LeaseOrderPolicy(), Map.of("service.id", 1L, "eviction.policy.name", "lease-lru"));
            assertEquals("lease-lru", c.stats().activePolicy());
            c.modified(config(0.05, 0.95, "lease-lru"));
            assertEquals("lease-lru", c.stats().activePolicy());
        } finally {
            c.deactivate();
        }
    }

    @Test
    void aBadConfigurationAtStartFallsBackToDefaultsAndStillServes() {
        MasterComponent c = new MasterComponent(config(0, 0.9, ""));
        try {
            assertEquals(0, c.stats().objects());
        } finally {
            c.deactivate();
        }
    }
}
