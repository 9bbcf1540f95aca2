package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.MediaIds;

import com.fasterxml.jackson.databind.JsonNode;

/** The Encoder -> Prefill -> Decode flow over real HTTP, through the JAX-RS resource. */
class EpdFlowTest {
    static final String IMAGE = "data:image/png;base64," + Base64.getEncoder().encodeToString(new byte[] { 1, 2, 3, 4 });
    static final String VIDEO = "http://media.example/clip.mp4";

    static String twoMedia(boolean stream) {
        return ProxyFixture.chatBody(stream, "[{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"compare\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + IMAGE + "\"}},"
                + "{\"type\":\"video_url\",\"video_url\":{\"url\":\"" + VIDEO + "\"},\"uuid\":\"client-chosen\"}]}]");
    }

    @Test
    void fullFlowWithTwoMediaItems() throws Exception {
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker p = new FakeWorker(Role.PREFILL, "p1");
                FakeWorker d = new FakeWorker(Role.DECODE, "d1")) {
            // both encodes must be in flight at once: each waits until the other arrived
            CountDownLatch bothArrived = new CountDownLatch(2);
            AtomicBoolean concurrent = new AtomicBoolean(true);
            e.chat = (r, ex) -> {
                bothArrived.countDown();
                if (!bothArrived.await(5, TimeUnit.SECONDS)) {
                    concurrent.set(false);
                }
                FakeWorker.encodeOk(r, ex);
            };
            try (ProxyFixture f = ProxyFixture.settings(e, p, d).start()) {
                HttpResponse<String> response = f.post("/v1/chat/completions", twoMedia(false), "X-Request-Id", "req-42");

                assertEquals(200, response.statusCode(), response.body());
                assertEquals("req-42", response.headers().firstValue("X-Request-Id").orElseThrow());
                JsonNode answer = ProxyFixture.json(response);
                assertEquals("req-42", answer.path("id").asText(), "the completion's id is the request id");
                assertEquals("Hello!", answer.path("choices").path(0).path("message").path("content").asText());
                assertTrue(concurrent.get(), "the two encodes were not concurrent");

                Map<String, String> uuidByUrl = Map.of(IMAGE, MediaIds.of(IMAGE), VIDEO, MediaIds.of(VIDEO));
                Map<Integer, String> encodedUrlByIndex = new HashMap<>();
                for (int i = 0; i < 2; i++) {
                    FakeWorker.Received enc = e.next();
                    String id = enc.requestId();
                    assertTrue(id.matches("req-42:[01]:[0-9a-f]{8}"), id);
                    JsonNode content = enc.body().path("messages").path(0).path("content");
                    assertEquals("user", enc.body().path("messages").path(0).path("role").asText());
                    assertEquals(1, enc.body().path("messages").size());
                    assertEquals(1, content.size(), "one media part per encode");
                    JsonNode part = content.path(0);
                    String type = part.path("type").asText();
                    String url = part.path(type).path("url").asText();
                    assertEquals(uuidByUrl.get(url), part.path("uuid").asText());
                    assertEquals(1, enc.body().path("max_tokens").asInt());
                    assertFalse(enc.body().path("stream").asBoolean(true));
                    assertEquals(FakeWorker.MODEL, enc.body().path("model").asText());
                    encodedUrlByIndex.put(Integer.parseInt(id.split(":")[1]), url);
                }
                assertEquals(Map.of(0, IMAGE, 1, VIDEO), encodedUrlByIndex);
                assertTrue(e.chats.isEmpty());

                FakeWorker.Received pre = p.next();
                assertEquals("req-42", pre.requestId());
                assertEquals(1, pre.body().path("max_tokens").asInt());
                assertFalse(pre.body().path("stream").asBoolean(true));
                assertEquals(Json.MAPPER.readTree("{\"do_remote_decode\":true,\"do_remote_prefill\":false}"),
                        pre.body().path("kv_transfer_params"));
                assertMediaUuids(pre.body(), uuidByUrl);
                assertEquals("compare", pre.body().path("messages").path(1).path("content").path(0).path("text").asText());

                FakeWorker.Received dec = d.next();
                assertEquals("req-42", dec.requestId());
                assertEquals(64, dec.body().path("max_tokens").asInt(), "decode keeps the client's max_tokens");
                assertFalse(dec.body().path("stream").asBoolean(true));
                assertEquals(FakeWorker.kvParams("p1"), dec.body().path("kv_transfer_params"),
                        "the prefill's kv_transfer_params are copied untouched");
                assertMediaUuids(dec.body(), uuidByUrl);
                assertEquals(1, f.proxy.counters().stageCount(Role.ENCODE));
                assertEquals(1, f.proxy.counters().requests("ok"));
            }
        }
    }

    /** Every media part carries the proxy's content-derived uuid (a client's own is replaced). */
    static void assertMediaUuids(JsonNode request, Map<String, String> uuidByUrl) {
        int seen = 0;
        for (JsonNode message : request.path("messages")) {
            for (JsonNode part : message.path("content")) {
                String type = part.path("type").asText();
                if (ChatRequest.MEDIA_TYPES.contains(type)) {
                    assertEquals(uuidByUrl.get(part.path(type).path("url").asText()), part.path("uuid").asText());
                    seen++;
                }
            }
        }
        assertEquals(uuidByUrl.size(), seen);
    }

    @Test
    void textOnlySkipsEncode() throws Exception {
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker p = new FakeWorker(Role.PREFILL, "p1");
                FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(e, p, d).start()) {
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
            assertEquals(200, response.statusCode(), response.body());
            assertEquals("hello", p.next().body().path("messages").path(0).path("content").asText());
            d.next();
            assertTrue(e.chats.isEmpty(), "a text-only request reached the encoder");
            assertEquals(0, f.proxy.counters().stageCount(Role.ENCODE));
        }
    }

    @Test
    void textOnlyNeedsNoEncoder() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            assertEquals(200, f.post("/v1/chat/completions", ProxyFixture.textOnly(false)).statusCode());
            HttpResponse<String> media = f.post("/v1/chat/completions", twoMedia(false));
            assertEquals(503, media.statusCode(), "media without an encoder");
            assertEquals("no_healthy_instance", ProxyFixture.json(media).path("error").path("code").asText());
        }
    }

    @Test
    void requestIdIsMadeWhenTheClientSendsNone() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
            String rid = response.headers().firstValue("X-Request-Id").orElseThrow();
            assertTrue(rid.matches("chatcmpl-[0-9a-f]{32}"), rid);
            assertEquals(rid, p.next().requestId());
            assertEquals(rid, d.next().requestId());
            assertEquals(rid, ProxyFixture.json(response).path("id").asText());

            HttpResponse<String> unusable = f.post("/v1/chat/completions", ProxyFixture.textOnly(false),
                    "X-Request-Id", "has spaces in it");
            assertTrue(unusable.headers().firstValue("X-Request-Id").orElseThrow().startsWith("chatcmpl-"));
        }
    }

    @Test
    void prefillRequestDropsStreamOptionsAndCapsMaxCompletionTokens() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            String body = "{\"model\":\"test-model\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                    + "\"max_completion_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            HttpResponse<String> response = f.post("/v1/chat/completions", body);
            assertEquals(200, response.statusCode());
            JsonNode pre = p.next().body();
            assertFalse(pre.has("stream_options"));
            assertEquals(1, pre.path("max_completion_tokens").asInt());
            JsonNode dec = d.next().body();
            assertEquals(50, dec.path("max_completion_tokens").asInt());
            assertTrue(dec.path("stream_options").path("include_usage").asBoolean());
            assertEquals(List.of("Hel", "lo", "!"), StreamingTest.contents(response.body()));
        }
    }
}
