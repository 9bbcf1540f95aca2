package org.mooncake.osgi.epd.hidden.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.ConnectorRole;
import org.mooncake.osgi.epd.api.DType;
import org.mooncake.osgi.epd.api.EcLoadException;
import org.mooncake.osgi.epd.api.EcStepMetadata;
import org.mooncake.osgi.epd.api.EcWorkerOutput;
import org.mooncake.osgi.epd.api.EncoderCacheScheduler;
import org.mooncake.osgi.epd.api.EncoderCacheWorker;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.api.LookupOutcome;
import org.mooncake.osgi.epd.api.Tensor;
import org.mooncake.osgi.epd.api.TensorHeader;
import org.mooncake.osgi.epd.testing.InProcessStore;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;

/**
 * The hidden-state connector between an encoder and a prefill worker, over a real master and
 * client in this process: the path, its evidence, and each fault ending in a clean miss,
 * recompute or error.
 */
class HiddenStateConnectorTest {
    private static final KeyNamespace REV1 = new KeyNamespace("", "vl-tiny", "r1", "enc1", DType.F32, 1,
            KeyNamespace.Parallel.SINGLE);
    private static final KeyNamespace REV2 = new KeyNamespace("", "vl-tiny", "r2", "enc2", DType.F32, 1,
            KeyNamespace.Parallel.SINGLE);
    private static final long[] SHAPE = {16, 64};

    private final InProcessStore store = new InProcessStore(8 << 20);
    private final EmbeddedStoreClient encoderClient = store.client("encoder", "default");
    private final EmbeddedStoreClient prefillClient = store.client("prefill", "default");
    private final HiddenStateConnector encoder = connector(ConnectorRole.PRODUCER, true, encoderClient);
    private HiddenStateConnector prefill = connector(ConnectorRole.CONSUMER, true, prefillClient);

    private HiddenStateConnector connector(ConnectorRole role, boolean recompute, EmbeddedStoreClient client) {
        return new HiddenStateConnector(new Settings(role, recompute, 0, 20, 10_000, 1), client, store.clock::millis);
    }

    @AfterEach
    void close() throws InterruptedException {
        encoder.deactivate();
        prefill.deactivate();
        store.close();
    }

    private static Tensor hidden(int seed) {
        float[] v = new float[16 * 64];
        for (int i = 0; i < v.length; i++) {
            v[i] = seed * 1000 + i * 0.5f;
        }
        return Tensor.ofFloats(v, SHAPE);
    }

    private void save(HiddenStateConnector c, KeyNamespace ns, String item, Tensor t) throws InterruptedException {
        EncoderCacheWorker w = c.worker(ns);
        w.saveCaches(Map.of(item, t), item, new EncoderCacheWorker.SaveHints("req-e", "session-1", 120));
        w.awaitSaves();
    }

    /** Looks up until the answer is in, as an engine that defers a request would. */
    private static LookupOutcome resolve(EncoderCacheScheduler s, String item) throws InterruptedException {
        LookupOutcome o = s.lookup(item);
        for (int i = 0; o == LookupOutcome.PENDING && i < 50; i++) {
            o = s.awaitLookup(item, 1000);
        }
        return o;
    }

    /** One engine step that loads {@code items}: what lands in the encoder cache. */
    private static Map<String, Tensor> loadStep(HiddenStateConnector c, KeyNamespace ns, String... items) {
        EncoderCacheScheduler s = c.scheduler(ns);
        for (String item : items) {
            s.updateStateAfterAlloc("req-p", item, new org.mooncake.osgi.epd.api.TensorSpec(DType.F32, SHAPE));
        }
        EcStepMetadata meta = s.buildConnectorMeta();
        assertEquals(items.length, meta.loads().size());
        assertEquals(0, s.buildConnectorMeta().loads().size(), "building the metadata resets the step");
        EncoderCacheWorker w = c.worker(ns);
        Map<String, Tensor> cache = new HashMap<>();
        w.bindConnectorMetadata(meta);
        try {
            w.startLoadCaches(cache);
        } finally {
            w.clearConnectorMetadata();
        }
        return cache;
    }

    private static float[] floats(Tensor t) {
        return t.data().toArray(java.lang.foreign.ValueLayout.JAVA_FLOAT);
    }

    @Test
    void anEncodersSaveIsAPrefillsHitAndLoadsBitForBit() throws Exception {
        Tensor t = hidden(1);
        save(encoder, REV1, "img-a", t);
        assertEquals(Set.of("img-a"), encoder.worker(REV1).getFinished(Set.of()).sent());

        EncoderCacheScheduler s = prefill.scheduler(REV1);
        assertEquals(LookupOutcome.HIT, resolve(s, "img-a"));
        assertEquals(LookupOutcome.MISS, resolve(s, "img-b"));
        Map<String, Tensor> cache = loadStep(prefill, REV1, "img-a");
        assertArrayEquals(floats(t), floats(cache.get("img-a")));
        EcWorkerOutput out = prefill.worker(REV1).getFinished(Set.of("req-p"));
        assertEquals(Set.of("img-a"), out.received());
        s.updateConnectorOutput(out);

        assertEquals(1, encoder.meter().transfers("put", "ok"));
        assertEquals(TensorHeader.SIZE + 16 * 64 * 4, encoder.meter().bytes("put"));
        assertEquals(1, prefill.meter().transfers("get", "ok"));
        assertEquals(1, prefill.meter().events("lookups", "hit"));
        assertEquals(1, prefill.meter().events("lookups", "miss"));
        var info = store.master.queryKey(new ObjectKey("default", REV1.hiddenState("img-a"))).orElseThrow();
        assertEquals(ObjectDataType.HIDDEN_STATE, info.dataType());
        assertEquals("session-1", info.groupId());
        assertEquals(120, info.recomputeCostMs());
    }

    @Test
    void aSaveIsIdempotentAndRequestFinishedHandsOnWhatItSaved() throws Exception {
        save(encoder, REV1, "img-a", hidden(1));
        HiddenStateConnector other = connector(ConnectorRole.PRODUCER, true, store.client("encoder-2", "default"));
        try {
            save(other, REV1, "img-a", hidden(1));
            assertEquals(1, other.meter().transfers("put", "exists"));
            assertEquals(Set.of("img-a"), other.worker(REV1).getFinished(Set.of()).sent(), "already stored: done");
        } finally {
            other.deactivate();
        }
        var finished = encoder.scheduler(REV1).requestFinished("req-e");
        assertFalse(finished.delayFree());
        assertEquals(List.of("img-a"), finished.transferParams().get("ec_saved_items"));
    }

    @Test
    void anotherRevisionNeverHitsTheFirstOnesItem() throws Exception {
        save(encoder, REV1, "img-a", hidden(1));
        assertEquals(LookupOutcome.MISS, resolve(prefill.scheduler(REV2), "img-a"));
        assertEquals(LookupOutcome.HIT, resolve(prefill.scheduler(REV1), "img-a"));
    }

    /** The encoder dies after starting its put: the item is pending, then a miss once the master declares it dead. */
    @Test
    void anEncoderKilledMidSaveLeavesAPendingItemThatBecomesAMissAtTheLivenessTimeout() throws Exception {
        EmbeddedStoreClient doomed = store.client("encoder-doomed", "default");
        store.master.putStart("encoder-doomed", new ObjectKey("default", REV1.hiddenState("img-x")), 4096,
                ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build(), false);
        EncoderCacheScheduler s = prefill.scheduler(REV1);
        assertEquals(LookupOutcome.PENDING, resolve(s, "img-x"), "being written: defer");
        store.pass(InProcessStore.CLIENT_TTL_MS + 1, doomed);
        store.clock.advance(20); // the next recheck of an item being written
        assertEquals(LookupOutcome.MISS, resolve(s, "img-x"), "its put was revoked with it");
        save(encoder, REV1, "img-x", hidden(7)); // and the key is free for a new save at once
        assertEquals(Set.of("img-x"), encoder.worker(REV1).getFinished(Set.of()).sent());
    }

    @Test
    void aStoreNodeLostBetweenSaveAndLoadIsARecomputeNeverAWrongTensor() throws Exception {
        save(encoder, REV1, "img-a", hidden(1));
        assertEquals(LookupOutcome.HIT, resolve(prefill.scheduler(REV1), "img-a"));
        store.storage.unmountAll(); // the node holding it is gone
        Map<String, Tensor> cache = loadStep(prefill, REV1, "img-a");
        assertTrue(cache.isEmpty());
        EcWorkerOutput out = prefill.worker(REV1).getFinished(Set.of());
        assertTrue(out.failedLoads().get("img-a").contains("OBJECT_NOT_FOUND"), out.failedLoads().toString());
        assertEquals(1, prefill.meter().events("recomputes_after_hit", "hidden_state"));
    }

    @Test
    void aFailedLoadIsTheRequestsErrorWhereConfiguredAndPopulatesNothing() throws Exception {
        prefill.deactivate();
        prefill = connector(ConnectorRole.CONSUMER, false, prefillClient);
        save(encoder, REV1, "img-a", hidden(1));
        EcLoadException e = assertThrows(EcLoadException.class,
                () -> loadStep(prefill, REV1, "img-a", "img-gone"));
        assertEquals(Set.of("img-gone"), e.failed().keySet());
        assertEquals(1, prefill.meter().transfers("get", "ok"), "the other item loaded");
        assertEquals(0, prefill.meter().events("recomputes_after_hit", "hidden_state"));
    }

    /** Valid checksum, wrong header: a tensor of another shape under the key is refused, not used. */
    @Test
    void anObjectWithAValidChecksumButAWrongHeaderIsRefused() throws Exception {
        float[] wrong = new float[8 * 128];
        try (Arena a = Arena.ofConfined()) {
            MemorySegment object = org.mooncake.osgi.epd.api.support.TensorObjects.encode(
                    Tensor.ofFloats(wrong, 8, 128), a);
            encoderClient.putFrom(REV1.hiddenState("img-w"), object, ReplicateConfig.DEFAULT);
        }
        assertEquals(LookupOutcome.HIT, resolve(prefill.scheduler(REV1), "img-w"));
        Map<String, Tensor> cache = loadStep(prefill, REV1, "img-w");
        assertTrue(cache.isEmpty());
        String why = prefill.worker(REV1).getFinished(Set.of()).failedLoads().get("img-w");
        assertTrue(why.contains("wrong tensor object") && why.contains("shape"), why);

        encoderClient.put(REV1.hiddenState("img-junk"), new byte[TensorHeader.SIZE + 16 * 64 * 4]);
        assertTrue(loadStep(prefill, REV1, "img-junk").isEmpty(), "zeros are no header");
    }

    @Test
    void aFailedSaveIsNeverReportedFinishedAndLaterRequestsMiss() throws Exception {
        store.storage.unmountAll(); // nowhere to put it
        save(encoder, REV1, "img-a", hidden(1));
        assertEquals(Set.of(), encoder.worker(REV1).getFinished(Set.of()).sent());
        assertEquals(1, encoder.meter().transfers("put", "failed"));
        assertEquals(LookupOutcome.MISS, resolve(prefill.scheduler(REV1), "img-a"));
    }

    @Test
    void rolesAreEnforcedAndTheMetricsSayWhatHappened() throws Exception {
        assertThrows(IllegalStateException.class,
                () -> prefill.worker(REV1).saveCaches(Map.of("x", hidden(1)), "x", null));
        save(encoder, REV1, "img-a", hidden(1));
        resolve(prefill.scheduler(REV1), "img-a");
        loadStep(prefill, REV1, "img-a");
        List<String> names = prefill.metrics().stream().map(m -> m.name()).toList();
        assertTrue(names.containsAll(List.of("mooncake_epd_hidden_state_transfers_total",
                "mooncake_epd_hidden_state_bytes_total", "mooncake_epd_hidden_state_transfer_seconds",
                "mooncake_epd_hidden_state_mib_per_second", "mooncake_epd_hidden_state_lookups_total")), names.toString());
    }
}
