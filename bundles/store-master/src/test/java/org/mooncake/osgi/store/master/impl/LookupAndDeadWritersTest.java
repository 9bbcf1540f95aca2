package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.memory.Checksums;

/** Look-ups that grant nothing, puts told apart by error code, and the puts of a client that is gone. */
class LookupAndDeadWritersTest {
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    private static void assertError(ErrorCode expected, Runnable call) {
        assertEquals(expected, assertThrows(StoreException.class, call::run).errorCode());
    }

    @Test
    void aLookupTellsReadableFromWritingFromAbsentAndGrantsNoLease() {
        f.mount("c1", "s1", 1 << 20);
        f.put("done", 100);
        m.putStart("c1", k("busy"), 100, ReplicateConfig.DEFAULT, false);
        long hitsBefore = m.stats().types().stream().mapToLong(t -> t.hits() + t.misses()).sum();

        assertEquals(List.of(ObjectState.READABLE, ObjectState.WRITING, ObjectState.ABSENT),
                m.lookupBatch(List.of(k("done"), k("busy"), k("never"))));

        assertEquals(hitsBefore, m.stats().types().stream().mapToLong(t -> t.hits() + t.misses()).sum(),
                "a look-up is not a read");
        m.remove(k("done"), false); // no lease: an unforced remove goes through at once
        assertEquals(List.of(ObjectState.ABSENT), m.lookupBatch(List.of(k("done"))));
    }

    @Test
    void aPutThatMeetsAPutInProgressIsToldApartFromOneThatMeetsAnObject() {
        f.mount("c1", "s1", 1 << 20);
        f.put("done", 100);
        m.putStart("c1", k("busy"), 100, ReplicateConfig.DEFAULT, false);
        assertError(ErrorCode.OBJECT_ALREADY_EXISTS, () -> m.putStart("c2", k("done"), 100, ReplicateConfig.DEFAULT, false));
        assertError(ErrorCode.OBJECT_BEING_WRITTEN, () -> m.putStart("c2", k("busy"), 100, ReplicateConfig.DEFAULT, false));
    }

    @Test
    void aDeadWritersKeysAreFreeAtOnceAndItsBlocksWaitForTheReleaseTimeout() {
        f.mount("owner", "s1", 1 << 20);
        m.heartbeat("encoder");
        PutTicket abandoned = m.putStart("encoder", k("hidden-1"), 4096, ReplicateConfig.DEFAULT, false);
        long reserved = m.stats().segments() == 1 ? m.segments().getFirst().usedBytes() : -1;

        f.clock.advance(MasterSettings.DEFAULTS.clientTtlMs() + 1);
        m.heartbeat("owner");
        m.runHousekeeping(); // the encoder is silent past client_ttl: dead

        assertEquals(List.of(ObjectState.ABSENT), m.lookupBatch(List.of(k("hidden-1"))));
        assertEquals(0, m.stats().processingPuts());
        PutTicket retry = m.putStart("prefill", k("hidden-1"), 4096, ReplicateConfig.DEFAULT, false);
        assertEquals(2 * reserved, m.segments().getFirst().usedBytes(), "the dead writer's blocks are still fenced");
        m.putEnd("prefill", k("hidden-1"), retry.putId(), 7);
        // the cut-off writer, back, cannot publish: its put is no longer the key's
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.putEnd("encoder", k("hidden-1"), abandoned.putId(), 9));

        f.clock.advance(MasterSettings.DEFAULTS.putStartReleaseTimeoutMs());
        m.heartbeat("owner");
        m.heartbeat("prefill");
        m.runHousekeeping();
        assertEquals(reserved, m.segments().getFirst().usedBytes(), "freed at the release timeout");
        assertEquals(7, m.getReplicaList(k("hidden-1")).checksum());
    }

    @Test
    void aClientThatLeavesHasItsPutsRevokedToo() {
        f.mount("owner", "s1", 1 << 20);
        m.heartbeat("c9");
        m.putStart("c9", k("x"), 4096, ReplicateConfig.DEFAULT, false);
        m.leave("c9");
        assertEquals(List.of(ObjectState.ABSENT), m.lookupBatch(List.of(k("x"))));
        m.putStart("c2", k("x"), 4096, ReplicateConfig.DEFAULT, false); // the key is free
    }

    @Test
    void aDeadWriterOfAnUpsertLeavesTheReadableVersionReadable() {
        f.mount("owner", "s1", 1 << 20);
        f.put("k", 100);
        m.heartbeat("c9");
        m.putStart("c9", k("k"), 100, ReplicateConfig.DEFAULT, true);
        m.leave("c9");
        assertEquals(List.of(ObjectState.READABLE), m.lookupBatch(List.of(k("k"))));
        assertEquals(42, m.getReplicaList(k("k")).checksum());
    }

    @Test
    void chunkChecksumsAreKeptAndHandedToReaders() {
        f.mount("c1", "s1", 1 << 20);
        ObjectKey key = k("big");
        PutTicket t = m.putStart("c1", key, 10_000, ReplicateConfig.DEFAULT, false);
        ChunkChecksums chunks = new ChunkChecksums(4096, new long[] {1, 2, 3});
        assertError(ErrorCode.INVALID_PARAMS, () -> m.putEnd("c1", key, t.putId(), 5, chunks));
        ChunkChecksums tooFew = new ChunkChecksums(4096, new long[] {1, 2});
        assertError(ErrorCode.INVALID_PARAMS, () -> m.putEnd("c1", key, t.putId(), Checksums.combine(tooFew), tooFew));
        m.putEnd("c1", key, t.putId(), Checksums.combine(chunks), chunks);
        assertEquals(chunks, m.getReplicaList(key).chunks());

        f.put("small", 100);
        assertNull(m.getReplicaList(k("small")).chunks());
        assertNotNull(m.queryKey(key).orElseThrow());
    }
}
