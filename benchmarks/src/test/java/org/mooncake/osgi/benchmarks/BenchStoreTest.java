package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.ObjectInfo;

class BenchStoreTest {
    private static final int OBJECTS = 20_000;

    @Test
    void anAgedStoreIsFullAsAskedHasBeenEvictedFromAndHoldsReadObjectsInSessions() {
        BenchStore store = new BenchStore("cost-aware", BenchStore.capacityFor(OBJECTS, 0.91));
        store.fillAged(OBJECTS, 0.91);
        MasterStats stats = store.master.stats();
        assertTrue(stats.usedRatio() >= 0.91 && stats.usedRatio() < 0.92, "filled back to 91%: " + stats.usedRatio());
        assertEquals(4, stats.evictionRounds(), "four rounds aged it");
        long evicted = stats.types().stream().mapToLong(t -> t.evictions()).sum();
        assertTrue(evicted > OBJECTS / 10, "the rounds took victims: " + evicted);
        long read = 0;
        long present = 0;
        for (int i = 0; i < OBJECTS; i++) {
            var info = store.master.queryKey(ObjectKey.of("obj-" + i));
            if (info.isPresent()) {
                present++;
                read += info.map(ObjectInfo::hits).orElse(0L) > 0 ? 1 : 0;
            }
        }
        assertTrue(read > present / 2, "most survivors were read: " + read + " of " + present);
        long before = stats.usedBytes();
        store.master.runEvictionRound();
        assertTrue(before - store.master.stats().usedBytes() > 0.05 * stats.capacityBytes(), "every lease has ended");
    }
}
