package org.mooncake.osgi.epd.worker.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.mooncake.osgi.epd.demo.DemoMedia;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Encoder -> Store -> Prefill -> Store -> Decode answers exactly what the aggregated worker
 * answers, and the counters show the work each disaggregated worker did not do.
 */
class EpdFlowTest {
    private final Cluster c = new Cluster();
    private static final String CAT = DemoMedia.pngDataUrl(1, 64);
    private static final String DOG = DemoMedia.pngDataUrl(2, 64);

    @AfterEach
    void close() throws InterruptedException {
        c.close();
    }

    private String aggregated(ObjectNode request) {
        JsonNode r = Cluster.call(c.aggregated, request, "agg");
        assertEquals(200, r.get("status").asInt(), r.toString());
        return Cluster.answer(r);
    }

    private String epd(ObjectNode request, String id) {
        JsonNode r = c.epd(request, id);
        assertEquals(200, r.get("status").asInt(), r.toString());
        return Cluster.answer(r);
    }

    @Test
    void oneImageDisaggregatedIsTheAggregatedAnswerAndComputesNothingTwice() {
        ObjectNode q = Cluster.request("vl@r1", "What is in the picture?", 12, "image_url", CAT);
        String expected = aggregated(q);
        JsonNode reply = c.epd(q, "req-1");
        assertEquals(expected, Cluster.answer(reply));
        assertEquals("req-1", reply.get("id").asText());

        assertEquals(1, c.encoder.metrics().count("encoder_passes", "vl@r1"));
        assertEquals(0, c.prefill.metrics().count("encoder_passes", "vl@r1"), "the prefill loaded the hidden state");
        assertEquals(1, c.prefill.ec().meter().events("lookups", "hit"));
        assertEquals(1, c.prefill.ec().meter().transfers("get", "ok"));
        assertEquals(0, c.decode.metrics().count("prefill_tokens", "vl@r1"), "the decode loaded every KV block");
        assertTrue(c.decode.metrics().count("kv_loaded_tokens", "vl@r1") > 16);
        assertEquals(reply.at("/usage/completion_tokens").asInt() - 1, c.decode.metrics().count("decode_tokens", "vl@r1"),
                "the first token came from the prefill");
        assertEquals(1, c.prefill.kv().meter().transfers("put", "ok") > 0 ? 1 : 0);
        assertEquals(c.prefill.kv().meter().transfers("put", "ok"), c.decode.kv().meter().transfers("get", "ok"));
    }

    @Test
    void aRepeatedImageHitsTheStoreAtTheEncoderAndThePrefill() {
        epd(Cluster.request("vl@r1", "first", 4, "image_url", CAT), "a");
        JsonNode encoded = Cluster.call(c.encoder, Cluster.request("vl@r1", "", 1, "image_url", CAT), "b:enc");
        assertTrue(encoded.at("/ec_transfer_params/items/0/already_stored").asBoolean(), encoded.toString());
        ObjectNode again = Cluster.request("vl@r1", "second", 6, "image_url", CAT);
        assertEquals(aggregated(again), epd(again, "b"));
        assertEquals(1, c.encoder.metrics().count("encoder_passes", "vl@r1"), "encoded once for both requests");
        assertEquals(2, c.prefill.ec().meter().events("lookups", "hit"));
    }

    @Test
    void severalImagesAVideoAndStreamingMatch() {
        ObjectNode several = Cluster.request("vl@r1", "Compare them", 8, "image_url", CAT, "image_url", DOG,
                "image_url", DemoMedia.pngDataUrl(3, 64));
        assertEquals(aggregated(several), epd(several, "s"));
        ObjectNode video = Cluster.request("vl@r1", "What happens?", 8, "video_url", DemoMedia.gifDataUrl(4, 64, 4));
        assertEquals(aggregated(video), epd(video, "v"));
        ObjectNode streamed = Cluster.request("vl@r1", "Stream it", 10, "image_url", DOG).put("stream", true);
        JsonNode sse = c.epd(streamed, "st");
        assertTrue(sse.get("sse").asText().endsWith("data: [DONE]\n\n"));
        assertEquals(aggregated(Cluster.request("vl@r1", "Stream it", 10, "image_url", DOG)), Cluster.answer(sse));
        assertEquals(0, c.prefill.metrics().count("encoder_passes", "vl@r1"));
        assertEquals(0, c.decode.metrics().count("prefill_tokens", "vl@r1"));
    }

    @Test
    void textOnlyNeedsNoEncoder() {
        ObjectNode q = Cluster.request("vl@r1", "Hello there", 8);
        JsonNode pre = Cluster.call(c.prefill, q.deepCopy().put("max_tokens", 1), "t");
        assertEquals(200, pre.get("status").asInt());
        ObjectNode dec = q.deepCopy();
        dec.set("kv_transfer_params", pre.get("kv_transfer_params"));
        assertEquals(aggregated(q), Cluster.answer(Cluster.call(c.decode, dec, "t")));
    }

    @Test
    void twoRevisionsShareTheStoreAndNeverEachOthersTensors() {
        ObjectNode r1 = Cluster.request("vl@r1", "Describe", 10, "image_url", CAT);
        ObjectNode r2 = Cluster.request("vl@r2", "Describe", 10, "image_url", CAT);
        String a1 = epd(r1, "r1");
        String a2 = epd(r2, "r2");
        assertEquals(aggregated(r1), a1);
        assertEquals(aggregated(r2), a2);
        assertNotEquals(a1, a2);
        assertEquals(1, c.encoder.metrics().count("encoder_passes", "vl@r2"), "r2 encoded the image itself");
        assertEquals(0, c.encoder.ec().meter().transfers("put", "exists"), "no save met the other revision's object");
    }

    @Test
    void aStorageNodeLostBetweenSaveAndLoadIsARecomputeWithTheSameAnswer() {
        ObjectNode q = Cluster.request("vl@r1", "Still there?", 8, "image_url", DOG);
        String expected = aggregated(q);
        assertEquals(200, Cluster.call(c.encoder, Cluster.request("vl@r1", "", 1, "image_url", DOG), "x:enc")
                .get("status").asInt());
        c.store.storage.unmountAll();
        c.store.storage.mountNewSegment(64 << 20, java.lang.foreign.Arena.global()); // a fresh, empty node
        ObjectNode pre = q.deepCopy().put("max_tokens", 1);
        JsonNode p = Cluster.call(c.prefill, pre, "x");
        assertEquals(200, p.get("status").asInt(), p.toString());
        assertEquals(1, c.prefill.metrics().count("encoder_passes", "vl@r1"), "the lost hidden state was encoded here");
        ObjectNode dec = q.deepCopy();
        dec.set("kv_transfer_params", p.get("kv_transfer_params"));
        c.store.storage.unmountAll(); // and the KV goes too
        c.store.storage.mountNewSegment(64 << 20, java.lang.foreign.Arena.global());
        assertEquals(expected, Cluster.answer(Cluster.call(c.decode, dec, "x")));
        assertTrue(c.decode.metrics().count("recomputes", "kv_tokens") > 0);
        assertTrue(c.decode.metrics().count("prefill_tokens", "vl@r1") > 0);
    }

    /** The prefill really uses the stored tensor: one changed element of it changes the answer. */
    @Test
    void oneChangedElementOfAStoredHiddenStateChangesTheAnswer() {
        ObjectNode q = Cluster.request("vl@r1", "Look closely", 12, "image_url", CAT);
        String expected = aggregated(q);
        assertEquals(200, Cluster.call(c.encoder, Cluster.request("vl@r1", "", 1, "image_url", CAT), "m:enc")
                .get("status").asInt());
        ServedModel model = ServedModel.parse(new String[] {Cluster.MODELS}, "").get("vl@r1");
        String key = model.hidden().hiddenState(org.mooncake.osgi.epd.api.MediaIds.of(CAT));
        byte[] object = c.store.storage.get(key);
        var floats = java.lang.foreign.MemorySegment.ofArray(object);
        var f32 = java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
        long at = org.mooncake.osgi.epd.api.TensorHeader.SIZE + 4L * 100;
        floats.set(f32, at, floats.get(f32, at) + 1.0f); // header intact, checksum recomputed by the put
        c.store.storage.upsert(key, object, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
        assertNotEquals(expected, epd(q, "m"));
    }

    /** The decode really uses the stored KV: one zeroed block changes the answer. */
    @Test
    void oneChangedStoredKvBlockChangesTheAnswer() {
        ObjectNode q = Cluster.request("vl@r1", "Once more", 12, "image_url", DOG);
        String expected = aggregated(q);
        assertEquals(expected, epd(q, "k1")); // the prefill stored the prompt's KV blocks
        ServedModel model = ServedModel.parse(new String[] {Cluster.MODELS}, "").get("vl@r1");
        java.util.List<org.mooncake.osgi.epd.model.PromptPart> layout = new java.util.ArrayList<>();
        for (ChatRequest.Part part : ChatRequest.parse(q, 512).parts()) {
            layout.add(part instanceof ChatRequest.Media m
                    ? org.mooncake.osgi.epd.model.PromptPart.MediaItem.layout(m.id(), model.model().mediaTokens(1))
                    : new org.mooncake.osgi.epd.model.PromptPart.Text(((ChatRequest.Text) part).text()));
        }
        KvLayout blocks = KvLayout.of(model.model(), layout, 16);
        String last = model.kv().kvBlock(0, blocks.hashes().getLast());
        byte[] object = c.store.storage.get(last);
        java.util.Arrays.fill(object, org.mooncake.osgi.epd.api.TensorHeader.SIZE, object.length, (byte) 0);
        c.store.storage.upsert(last, object, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
        assertNotEquals(expected, epd(q, "k2"));
    }

    @Test
    void badRequestsAreRefusedInOpenAisShape() {
        JsonNode unknown = Cluster.call(c.aggregated, Cluster.request("nope@r9", "hi", 2), "e1");
        assertEquals(404, unknown.get("status").asInt());
        assertEquals("model_not_found", unknown.at("/error/code").asText());
        ObjectNode audio = Cluster.request("vl@r1", "hi", 2);
        ((ObjectNode) audio.at("/messages/0/content").get(0)).put("type", "input_audio");
        assertEquals(400, Cluster.call(c.aggregated, audio, "e2").get("status").asInt());
        JsonNode noHandoff = Cluster.call(c.decode, Cluster.request("vl@r1", "hi", 2), "e3");
        assertEquals(400, noHandoff.get("status").asInt());
        assertTrue(noHandoff.at("/error/message").asText().contains("kv_transfer_params"));
        JsonNode broken = Cluster.call(c.aggregated, Cluster.request("vl@r1", "hi", 2, "image_url",
                "data:image/png;base64,AAAA"), "e4");
        assertEquals(400, broken.get("status").asInt());
        JsonNode text = Cluster.call(c.encoder, Cluster.request("vl@r1", "no media", 1), "e5");
        assertEquals(400, text.get("status").asInt());
        assertFalse(c.aggregated.worker().chat("{".getBytes(), "e6") instanceof Worker.Stream);
    }
}
