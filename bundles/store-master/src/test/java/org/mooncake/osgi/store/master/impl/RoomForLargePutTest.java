package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;

/**
 * A round frees bytes where its victims lie; a put of a large object that found no contiguous
 * room gets, from the next round, a contiguous range of evictable objects (the cheapest by
 * recompute cost), never of leased ones.
 */
class RoomForLargePutTest {
    private static final int SMALL = 4096;
    private static final int BIG = 512 * 1024;
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    private void fill(String prefix, int count, ReplicateConfig config) {
        for (int i = 0; i < count; i++) {
            f.put(prefix + i, SMALL, config);
            f.clock.advance(1);
        }
    }

    private int present(String prefix, int count) {
        int n = 0;
        for (int i = 0; i < count; i++) {
            n += m.queryKey(k(prefix + i)).isPresent() ? 1 : 0;
        }
        return n;
    }

    private StoreException putBig() {
        return assertThrows(StoreException.class, () -> f.put("big", BIG));
    }

    @Test
    void aPutThatFoundNoRoomGetsAContiguousRangeFromTheNextRound() {
        f.mount("c1", "s1", 1 << 20);
        fill("small-", 256, ReplicateConfig.DEFAULT);
        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE, putBig().errorCode());

        m.runEvictionRound();

        f.put("big", BIG);
        assertEquals(1, m.evictor().roomsMade());
        assertTrue(present("small-", 256) >= 128, "the range reused what the pass had freed: "
                + present("small-", 256) + " small objects left");
    }

    @Test
    void leasedObjectsAreNeverEvictedForRoom() {
        f.mount("c1", "s1", 1 << 20);
        fill("small-", 256, ReplicateConfig.DEFAULT);
        for (int i = 8; i < 256; i += 16) { // one leased block in every 64 KiB: no 512 KiB range can go
            m.getReplicaList(k("small-" + i));
        }
        putBig();

        m.runEvictionRound();

        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE, putBig().errorCode());
        assertEquals(0, m.evictor().roomsMade());
        for (int i = 8; i < 256; i += 16) {
            assertTrue(m.queryKey(k("small-" + i)).isPresent(), "leased small-" + i + " was evicted");
        }
    }

    @Test
    void hardPinnedObjectsAreNeverEvictedForRoom() {
        f.mount("c1", "s1", 1 << 20);
        for (int i = 0; i < 256; i++) { // one hard-pinned block in every 64 KiB
            f.put("small-" + i, SMALL, i % 16 == 8 ? ReplicateConfig.builder().hardPin(true).build() : ReplicateConfig.DEFAULT);
            f.clock.advance(1);
        }
        putBig();

        m.runEvictionRound();

        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE, putBig().errorCode());
        for (int i = 8; i < 256; i += 16) {
            assertTrue(m.queryKey(k("small-" + i)).isPresent(), "hard-pinned small-" + i + " was evicted");
        }
    }

    @Test
    void theRangeWhoseObjectsCostLeastToRecomputeGoes() {
        RoomForLargePutTest withoutBigPut = new RoomForLargePutTest();
        for (RoomForLargePutTest t : new RoomForLargePutTest[] {this, withoutBigPut}) {
            t.f.mount("c1", "s1", 1 << 20);
            t.fill("dear-", 128, ReplicateConfig.builder().recomputeCostMs(1_000).build()); // the first 512 KiB
            t.fill("cheap-", 128, ReplicateConfig.builder().recomputeCostMs(1).build()); // the second
        }
        putBig();

        m.runEvictionRound(); // its pass takes the oldest, dear ones, from the front; then the room
        withoutBigPut.m.runEvictionRound(); // the same pass, and no room wanted

        f.put("big", BIG);
        assertEquals(0, present("cheap-", 128), "the cheap half made the room");
        assertEquals(withoutBigPut.present("dear-", 128), present("dear-", 128), "no dear object went for the room");
        assertEquals(128, withoutBigPut.present("cheap-", 128));
    }
}
