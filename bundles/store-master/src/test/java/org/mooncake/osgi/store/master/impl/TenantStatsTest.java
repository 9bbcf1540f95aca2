package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.TenantStats;

class TenantStatsTest {
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    @Test
    void countsOnlyThatTenantsReadableObjectsAndItsPutsInProgress() {
        f.mount("c1", "s1", 1 << 20);
        for (String key : new String[] {"x", "y"}) {
            ObjectKey k = new ObjectKey("a", key);
            m.putEnd("c1", k, m.putStart("c1", k, 1000, ReplicateConfig.DEFAULT, false).putId(), 1);
        }
        m.putStart("c1", new ObjectKey("a", "writing"), 500, ReplicateConfig.DEFAULT, false);
        ObjectKey other = new ObjectKey("b", "x");
        m.putEnd("c1", other, m.putStart("c1", other, 7000, ReplicateConfig.DEFAULT, false).putId(), 1);

        assertEquals(new TenantStats("a", 2, 2000, 1), m.tenantStats("a").orElseThrow());
        assertEquals(new TenantStats("b", 1, 7000, 0), m.tenantStats("b").orElseThrow());
        assertEquals(new TenantStats("nobody", 0, 0, 0), m.tenantStats("nobody").orElseThrow());
        assertThrows(StoreException.class, () -> m.tenantStats("bad tenant/"));
    }
}
