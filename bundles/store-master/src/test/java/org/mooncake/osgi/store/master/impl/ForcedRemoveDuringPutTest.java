package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;

/**
 * Found by ConcurrentStoreTest: a forced remove (or a lost segment) freed the blocks of a put
 * whose writer was still copying into them; the next put got the same blocks and the late
 * writer corrupted it (CHECKSUM_MISMATCH). Cancelled puts now keep their blocks until the writer
 * revokes, or until the release timeout if it never does.
 */
class ForcedRemoveDuringPutTest {
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    @Test
    void aForcedRemoveKeepsTheWritersBlocksUntilItRevokes() {
        f.mount("c1", "s1", 4096);
        long put1 = m.putStart("writer", k("a"), 4096, ReplicateConfig.DEFAULT, false).putId();
        m.remove(k("a"), true);
        assertFalse(m.exists(k("a")));
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, assertThrows(StoreException.class, () -> m.getReplicaList(k("a"))).errorCode());
        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE,
                assertThrows(StoreException.class, () -> m.putStart("other", k("b"), 4096, ReplicateConfig.DEFAULT, false))
                        .errorCode(), "the cancelled put's block is not handed out while its writer may write");
        assertEquals(ErrorCode.OBJECT_NOT_FOUND,
                assertThrows(StoreException.class, () -> m.putEnd("writer", k("a"), put1, 0)).errorCode());
        m.putRevoke("writer", k("a"), put1);
        assertEquals(0, m.stats().usedBytes());
        f.put("b", 4096);
    }

    @Test
    void aCancelledPutNeverRevokedIsReclaimedAfterTheReleaseTimeout() {
        f.mount("c1", "s1", 4096);
        long put2 = m.putStart("writer", k("a"), 4096, ReplicateConfig.DEFAULT, false).putId();
        m.remove(k("a"), true);
        f.clock.advance(600_000);
        m.heartbeat("c1");
        m.runHousekeeping();
        assertEquals(0, m.stats().usedBytes());
    }

    @Test
    void losingOneReplicasSegmentCancelsThePutButKeepsItsOtherBlocks() {
        f.mount("dead", "sd", 4096);
        f.mount("alive", "sa", 4096);
        long put3 = m.putStart("writer", k("a"), 4096, ReplicateConfig.builder().replicaCount(2).build(), false).putId();
        m.unmountSegment("dead", "sd");
        assertEquals(List.of("sa"), m.segments().stream().map(s -> s.name()).toList());
        assertEquals(4096, m.stats().usedBytes(), "the writer may still be copying into sa");
        assertEquals("CANCELLED", m.queryKey(k("a")).orElseThrow().state());
        assertThrows(StoreException.class, () -> m.putEnd("writer", k("a"), put3, 0));
        m.putRevoke("writer", k("a"), put3);
        assertEquals(0, m.stats().usedBytes());
    }

    @Test
    void aNewPutOfACancelledKeyDoesNotWaitForTheDiscardTimeout() {
        f.mount("c1", "s1", 8192);
        long put4 = m.putStart("writer", k("a"), 4096, ReplicateConfig.DEFAULT, false).putId();
        m.remove(k("a"), true);
        f.put("a", 100);
        assertEquals("COMPLETE", m.queryKey(k("a")).orElseThrow().state());
        assertEquals(4096 + 128, m.stats().usedBytes(), "the old writer's block waits for the release timeout");
    }
}
