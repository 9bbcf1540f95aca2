package org.mooncake.osgi.epd.kv.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.ConnectorRole;
import org.mooncake.osgi.epd.api.DType;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.api.KvCacheConnector;
import org.mooncake.osgi.epd.api.PrefixHashes;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorSpec;
import org.mooncake.osgi.epd.api.support.TensorObjects;
import org.mooncake.osgi.epd.testing.InProcessStore;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;

/** KV blocks from a prefill to a decode over a real master and client in this process, and what goes wrong. */
class KvConnectorTest {
    private static final KeyNamespace NS = new KeyNamespace("", "vl-tiny", "r1", "-", DType.F32, 1,
            KeyNamespace.Parallel.SINGLE);
    private static final int BLOCK = 16;
    /** [layers, k|v, tokens, kv dim] */
    private static final long[] BLOCK_SHAPE = {2, 2, BLOCK, 32};

    private final InProcessStore store = new InProcessStore(8 << 20);
    private final KvConnector prefill = new KvConnector(new KvConnector.Settings(ConnectorRole.PRODUCER, BLOCK, true, 1),
            store.client("prefill", "default"));
    private final KvConnector decode = new KvConnector(new KvConnector.Settings(ConnectorRole.CONSUMER, BLOCK, true, 1),
            store.client("decode", "default"));
    private final List<byte[]> hashes = PrefixHashes.of(tokens(40), null, BLOCK);

    @AfterEach
    void close() {
        store.close();
    }

    private static int[] tokens(int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = (i * 37) % 256;
        }
        return t;
    }

    private static Tensor block(int i) {
        float[] v = new float[2 * 2 * BLOCK * 32];
        for (int j = 0; j < v.length; j++) {
            v[j] = i * 10_000 + j;
        }
        return Tensor.ofFloats(v, BLOCK_SHAPE);
    }

    private final List<Tensor> loaded = new ArrayList<>();

    private KvCacheConnector.LoadResult load() {
        loaded.clear();
        return decode.load(NS, "req-d", hashes, i -> {
            Tensor t = TensorObjects.allocate(new TensorSpec(DType.F32, BLOCK_SHAPE));
            loaded.add(t);
            return t;
        });
    }

    @Test
    void aPrefillsBlocksReachTheDecodeBitForBitAndASecondSaveWritesNothing() {
        KvCacheConnector.SaveResult saved = prefill.save(NS, "req-p", hashes, KvConnectorTest::block, "session-1");
        assertEquals(3, hashes.size());
        assertEquals(3, saved.saved());
        assertTrue(saved.complete());
        assertEquals(3, saved.transferParams().get("kv_blocks"));
        var info = store.master.queryKey(new ObjectKey("default", NS.kvBlock(0, hashes.get(1)))).orElseThrow();
        assertEquals(ObjectDataType.KVCACHE, info.dataType());

        KvCacheConnector.LoadResult r = load();
        assertTrue(r.complete());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(block(i).data().toArray(ValueLayout.JAVA_FLOAT),
                    loaded.get(i).data().toArray(ValueLayout.JAVA_FLOAT));
        }
        KvCacheConnector.SaveResult again = prefill.save(NS, "req-p2", hashes, KvConnectorTest::block, null);
        assertEquals(0, again.saved());
        assertEquals(3, again.alreadyStored());
        assertEquals(3, prefill.meter().transfers("put", "ok"));
        assertEquals(3, decode.meter().transfers("get", "ok"));
    }

    @Test
    void aMissingBlockEndsTheLoadThereAndTheDecodeKnowsHowFarItGot() {
        prefill.save(NS, "req-p", hashes, KvConnectorTest::block, null);
        store.master.remove(new ObjectKey("default", NS.kvBlock(0, hashes.get(1))), true);
        KvCacheConnector.LoadResult r = load();
        assertFalse(r.complete());
        assertEquals(1, r.loaded());
        assertTrue(r.error().startsWith("block 1: OBJECT_NOT_FOUND"), r.error());
        assertTrue(decode.recomputesOnFailure());
    }

    @Test
    void aBlockOfAnotherShapeUnderTheKeyIsRefused() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment wrong = TensorObjects.encode(Tensor.ofFloats(new float[2 * 2 * BLOCK * 16], 2, 2, BLOCK, 16), a);
            store.storage.putFrom(NS.kvBlock(0, hashes.getFirst()), wrong, ReplicateConfig.DEFAULT);
        }
        KvCacheConnector.LoadResult r = load();
        assertEquals(0, r.loaded());
        assertTrue(r.error().contains("wrong tensor object"), r.error());
    }

    @Test
    void anotherRevisionsBlocksAreNeverLoaded() {
        prefill.save(NS, "req-p", hashes, KvConnectorTest::block, null);
        KeyNamespace r2 = new KeyNamespace("", "vl-tiny", "r2", "-", DType.F32, 1, KeyNamespace.Parallel.SINGLE);
        assertEquals(0, decode.load(r2, "req", hashes, i -> TensorObjects.allocate(
                new TensorSpec(DType.F32, BLOCK_SHAPE))).loaded());
    }

    @Test
    void aSaveWithNoRoomFailsItsBlocksAndSaysSo() {
        store.storage.unmountAll();
        KvCacheConnector.SaveResult r = prefill.save(NS, "req-p", hashes, KvConnectorTest::block, null);
        assertEquals(3, r.failed());
        assertFalse(r.complete());
        assertEquals(false, r.transferParams().get("kv_blocks_complete"));
    }

    @Test
    void rolesAreEnforced() {
        assertThrows(IllegalStateException.class, () -> decode.save(NS, "r", hashes, KvConnectorTest::block, null));
        assertThrows(IllegalStateException.class, () -> prefill.load(NS, "r", hashes, KvConnectorTest::block));
        assertThrows(IllegalArgumentException.class, () -> new KvConnector.Settings(ConnectorRole.BOTH, 0, true, 1));
    }
}
