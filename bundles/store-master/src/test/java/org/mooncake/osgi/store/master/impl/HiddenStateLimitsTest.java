package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.PutTicket;

/** The master's limits on HIDDEN_STATE objects: a TTL of idleness and a per-tenant share of capacity. */
class HiddenStateLimitsTest {
    private static final long CAPACITY = 1 << 20;
    private static final ReplicateConfig HIDDEN = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build();
    private static final ReplicateConfig KV = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();

    private static MasterFixture fixture(long ttlMs, double share) {
        MasterFixture f = new MasterFixture(
                MasterSettings.DEFAULTS.withHiddenState(new MasterSettings.HiddenStateLimits(ttlMs, share)));
        f.mount("owner", "s1", CAPACITY);
        return f;
    }

    private static void put(MasterFixture f, String tenant, String key, long size, ReplicateConfig c) {
        PutTicket t = f.master.putStart("w", new ObjectKey(tenant, key), size, c, false);
        f.master.putEnd("w", new ObjectKey(tenant, key), t.putId(), 1);
    }

    private static ObjectState state(MasterFixture f, String tenant, String key) {
        return f.master.lookupBatch(List.of(new ObjectKey(tenant, key))).getFirst();
    }

    @Test
    void hiddenStatesIdlePastTheirTtlAreRemovedAndNothingElse() {
        MasterFixture f = fixture(60_000, 1.0);
        put(f, "t", "old", 4096, HIDDEN);
        put(f, "t", "kv", 4096, KV);
        f.clock.advance(30_000);
        put(f, "t", "young", 4096, HIDDEN);
        put(f, "t", "read", 4096, HIDDEN);
        f.clock.advance(25_000);
        f.master.getReplicaList(new ObjectKey("t", "read")); // read 55 s in: idle only 5 s at the check
        f.clock.advance(10_000); // old idle 65 s, young 35 s, read 10 s

        f.master.runEvictionRound(); // far below the watermark: only the TTL acts

        assertEquals(ObjectState.ABSENT, state(f, "t", "old"));
        assertEquals(ObjectState.READABLE, state(f, "t", "young"));
        assertEquals(ObjectState.READABLE, state(f, "t", "read"));
        assertEquals(ObjectState.READABLE, state(f, "t", "kv"), "the TTL is for hidden states only");
        assertEquals(1, f.master.stats().types().stream().filter(s -> s.dataType() == ObjectDataType.HIDDEN_STATE)
                .mapToLong(s -> s.evictions()).sum());
    }

    @Test
    void aTenantOverItsShareLosesItsLeastRecentlyUsedHiddenStatesAndOthersKeepTheirs() {
        MasterFixture f = fixture(0, 0.25); // 256 KiB per tenant
        for (int i = 0; i < 4; i++) {
            put(f, "other", "o" + i, 32 << 10, HIDDEN);
        }
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 12; i++) { // 384 KiB: 128 over
            f.clock.advance(1);
            put(f, "greedy", "g" + i, 32 << 10, HIDDEN);
            order.add("g" + i);
        }
        f.clock.advance(1);
        f.master.getReplicaList(new ObjectKey("greedy", "g0")); // the oldest was read: its lease is long now
        f.clock.advance(MasterSettings.DEFAULTS.defaultLeaseTtlMs() + 1);

        f.master.runEvictionRound();

        List<String> kept = order.stream().filter(k -> state(f, "greedy", k) == ObjectState.READABLE).toList();
        assertEquals(List.of("g0", "g5", "g6", "g7", "g8", "g9", "g10", "g11"), kept,
                "least recently used first; g0 was read last");
        for (int i = 0; i < 4; i++) {
            assertEquals(ObjectState.READABLE, state(f, "other", "o" + i));
        }
    }

    @Test
    void aLeasedHiddenStateIsNeverTakenByALimit() {
        MasterFixture f = fixture(1_000, 1.0);
        put(f, "t", "leased", 4096, HIDDEN);
        f.clock.advance(2_000);
        f.master.getReplicaList(new ObjectKey("t", "leased")); // a reader holds it now
        f.clock.advance(1_500); // idle 1.5 s > TTL, lease 8.5 s to go
        f.master.runEvictionRound();
        assertEquals(ObjectState.READABLE, state(f, "t", "leased"));
        f.clock.advance(MasterSettings.DEFAULTS.defaultLeaseTtlMs());
        f.master.runEvictionRound();
        assertEquals(ObjectState.ABSENT, state(f, "t", "leased"));
    }

    @Test
    void brokenLimitsAreRefused() {
        assertThrows(StoreException.class, () -> new MasterSettings.HiddenStateLimits(-1, 1.0));
        assertThrows(StoreException.class, () -> new MasterSettings.HiddenStateLimits(0, 0));
        assertThrows(StoreException.class, () -> new MasterSettings.HiddenStateLimits(0, 1.5));
        assertTrue(!MasterSettings.HiddenStateLimits.NONE.any());
    }
}
