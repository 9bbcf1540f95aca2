package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.PutTicket;

/** Which blocks a room search may take, as objects come and go: the single copy of a readable, unpinned version. */
class BlockListingTest {
    private final MasterFixture f = new MasterFixture();

    private List<Long> listed(String segment) {
        List<Long> offsets = new ArrayList<>();
        EvictableBlocks blocks = f.master.segmentRegistry().get(segment).evictable();
        for (long from = Long.MIN_VALUE; (from = blocks.read(from, (b, owners, lo, hi) -> {
            for (int j = lo; j < hi; j++) {
                offsets.add(b[EvictableBlocks.FIELDS * j + EvictableBlocks.OFFSET]);
            }
        })) != Long.MIN_VALUE;) {
            // one chunk a call
        }
        return offsets;
    }

    @Test
    void aReadableSingleCopyIsListedUntilItIsRemovedOrReplaced() {
        f.mount("c1", "s0", 1 << 20);
        long first = f.put("a", 1000).getFirst().offset();
        assertEquals(List.of(first), listed("s0"));
        f.master.putStart("c1", k("pending"), 1000, ReplicateConfig.DEFAULT, false);
        f.put("pinned", 1000, ReplicateConfig.builder().hardPin(true).build());
        assertEquals(List.of(first), listed("s0"), "neither a put in progress nor a hard-pinned object");

        PutTicket upsert = f.master.putStart("c1", k("a"), 3000, ReplicateConfig.DEFAULT, true);
        long second = upsert.replicas().getFirst().offset();
        f.master.putEnd("c1", k("a"), upsert.putId(), 1);
        assertEquals(List.of(second), listed("s0"), "an upsert lists the new block in the old one's place");

        f.master.remove(k("a"), false);
        assertEquals(List.of(), listed("s0"));
    }

    @Test
    void aReplicatedObjectIsListedOnceItHasOneCopyLeft() {
        f.mount("c1", "s0", 1 << 20);
        f.mount("c2", "s1", 1 << 20);
        var copies = f.put("a", 1000, ReplicateConfig.builder().replicaCount(2).build());
        assertEquals(List.of(), listed("s0"));
        assertEquals(List.of(), listed("s1"));
        f.master.unmountSegment("c2", "s1");
        assertEquals(List.of(copies.stream().filter(r -> r.segmentName().equals("s0")).findFirst().orElseThrow().offset()),
                listed("s0"));
    }

    @Test
    void aRoundsVictimsLeaveTheListing() {
        f.mount("c1", "s0", 100 * 1024);
        for (int i = 0; i < 100; i++) {
            f.put("o" + i, 1000);
            f.clock.advance(1);
        }
        f.clock.advance(60_000);
        f.master.runEvictionRound();
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            if (f.master.exists(k("o" + i))) {
                expected.add((long) i * 1024);
            }
        }
        assertEquals(expected, listed("s0"), "the survivors, and only they");
        assertTrue(expected.size() < 100, "the round evicted some");
    }
}
