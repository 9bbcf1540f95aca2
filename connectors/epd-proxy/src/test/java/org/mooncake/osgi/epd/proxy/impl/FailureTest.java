package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.MediaIds;

import com.fasterxml.jackson.databind.JsonNode;

/** Worker failures: retries on another instance, fail-fast, timeouts, passing a worker's 4xx on. */
class FailureTest {

    static String mediaPart(JsonNode encodeRequest) {
        return encodeRequest.path("messages").path(0).path("content").path(0).path("uuid").asText();
    }

    @Test
    void failedEncodeIsRetriedOnAnotherEncoder() throws Exception {
        try (FakeWorker bad = new FakeWorker(Role.ENCODE, "e-bad"); FakeWorker good = new FakeWorker(Role.ENCODE, "e-good");
                FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(bad, good, p, d).start()) {
            bad.chat = (r, ex) -> FakeWorker.json(ex, 500, "{\"error\":{\"message\":\"GPU fell off\"}}");
            HttpResponse<String> response = f.post("/v1/chat/completions", EpdFlowTest.twoMedia(false), "X-Request-Id",
                    "r1");
            assertEquals(200, response.statusCode(), response.body());
            // item 0 went to e-bad first (round-robin in item order), then to e-good; item 1 to e-good
            FakeWorker.Received failed = bad.next();
            assertTrue(failed.requestId().startsWith("r1:0:"), failed.requestId());
            Set<String> encodedByGood = new HashSet<>();
            encodedByGood.add(mediaPart(good.next().body()));
            encodedByGood.add(mediaPart(good.next().body()));
            assertEquals(Set.of(MediaIds.of(EpdFlowTest.IMAGE), MediaIds.of(EpdFlowTest.VIDEO)), encodedByGood);
            assertTrue(bad.chats.isEmpty());
            assertEquals(1, f.proxy.counters().retries(Role.ENCODE));
        }
    }

    @Test
    void failedEncodeWithASingleEncoderFailsFastWith502() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker p = new FakeWorker(Role.PREFILL, "p1");
                FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(e, p, d).timeouts(30_000, 30_000, 30_000, 30_000).start()) {
            e.chat = (r, ex) -> {
                if (r.requestId().contains(":0:")) {
                    FakeWorker.json(ex, 500, "{\"error\":{\"message\":\"encoder crashed\"}}");
                } else {
                    release.await(20, TimeUnit.SECONDS); // item 1 hangs: the answer must not wait for it
                    FakeWorker.encodeOk(r, ex);
                }
            };
            // the client gives up after 10 s (ProxyFixture), well before item 1's encode would end
            HttpResponse<String> response = f.post("/v1/chat/completions", EpdFlowTest.twoMedia(false));
            assertEquals(502, response.statusCode(), response.body());
            JsonNode error = ProxyFixture.json(response).path("error");
            assertEquals("server_error", error.path("type").asText());
            assertEquals("upstream_error", error.path("code").asText());
            assertTrue(error.path("message").asText().contains("encoder crashed"), error.toString());
            assertTrue(error.has("param"));
            assertTrue(p.chats.isEmpty() && d.chats.isEmpty(), "prefill or decode ran after a failed encode");
            assertEquals(0, f.proxy.counters().retries(Role.ENCODE));
            assertEquals(1, f.proxy.counters().requests("upstream_error"));
        } finally {
            release.countDown();
        }
    }

    @Test
    void encoderRejectingTheItemPassesItsStatusAndMessageOn() throws Exception {
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker e2 = new FakeWorker(Role.ENCODE, "e2");
                FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(e, e2, p, d).start()) {
            FakeWorker.Handler reject = (r, ex) -> FakeWorker.json(ex, 400,
                    "{\"object\":\"error\",\"message\":\"cannot decode image\",\"type\":\"BadRequestError\",\"code\":400}");
            e.chat = reject;
            e2.chat = reject;
            HttpResponse<String> response = f.post("/v1/chat/completions", EpdFlowTest.twoMedia(false));
            assertEquals(400, response.statusCode(), response.body());
            JsonNode error = ProxyFixture.json(response).path("error");
            assertEquals("cannot decode image", error.path("message").asText());
            assertEquals("invalid_request_error", error.path("type").asText());
            assertEquals(0, f.proxy.counters().retries(Role.ENCODE), "a 4xx is not retried");
        }
    }

    @Test
    void prefillServerErrorIsRetriedOnAnotherPrefill() throws Exception {
        try (FakeWorker bad = new FakeWorker(Role.PREFILL, "p-bad"); FakeWorker good = new FakeWorker(Role.PREFILL, "p2");
                FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(bad, good, d).start()) {
            bad.chat = (r, ex) -> FakeWorker.json(ex, 500, "{}");
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
            assertEquals(200, response.statusCode(), response.body());
            bad.next();
            good.next();
            assertEquals(FakeWorker.kvParams("p2"), d.next().body().path("kv_transfer_params"));
            assertEquals(1, f.proxy.counters().retries(Role.PREFILL));
        }
    }

    @Test
    void prefillThatDoesNotAnswerInTimeIs504() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker p2 = new FakeWorker(Role.PREFILL, "p2");
                FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, p2, d).timeouts(5000, 300, 5000, 5000).start()) {
            p.chat = (r, ex) -> release.await(10, TimeUnit.SECONDS);
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
            assertEquals(504, response.statusCode(), response.body());
            JsonNode error = ProxyFixture.json(response).path("error");
            assertEquals("upstream_timeout", error.path("code").asText());
            assertEquals("server_error", error.path("type").asText());
            assertTrue(error.path("message").asText().startsWith("prefill stage timed out"), error.toString());
            assertTrue(p2.chats.isEmpty(), "a timed-out prefill is not retried");
            assertTrue(d.chats.isEmpty());
            assertEquals(1, f.proxy.counters().requests("timeout"));
        } finally {
            release.countDown();
        }
    }

    @Test
    void streamedDecodeWithoutAFirstEventInTimeIs504() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).timeouts(5000, 5000, 300, 5000).start()) {
            d.chat = (r, ex) -> {
                FakeWorker.startSse(ex); // headers, then nothing
                release.await(10, TimeUnit.SECONDS);
            };
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(true));
            assertEquals(504, response.statusCode(), response.body());
            assertEquals("upstream_timeout", ProxyFixture.json(response).path("error").path("code").asText());
        } finally {
            release.countDown();
        }
    }

    @Test
    void encodeTimeoutIsRetriedThenIs504() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker e2 = new FakeWorker(Role.ENCODE, "e2");
                FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(e, e2, p, d).timeouts(300, 5000, 5000, 5000).start()) {
            FakeWorker.Handler hang = (r, ex) -> release.await(10, TimeUnit.SECONDS);
            e.chat = hang;
            e2.chat = hang;
            String oneImage = ProxyFixture.chatBody(false, "[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                    + "\"image_url\":{\"url\":\"http://media.example/a.png\"}}]}]");
            HttpResponse<String> response = f.post("/v1/chat/completions", oneImage);
            assertEquals(504, response.statusCode(), response.body());
            e.next();
            e2.next();
            assertEquals(1, f.proxy.counters().retries(Role.ENCODE));
        } finally {
            release.countDown();
        }
    }

    @Test
    void prefillAnswerWithoutKvTransferParamsIs502() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            p.chat = (r, ex) -> FakeWorker.json(ex, 200, Json.text(FakeWorker.completion("x", "m", "y")));
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
            assertEquals(502, response.statusCode());
            assertTrue(ProxyFixture.json(response).path("error").path("message").asText().contains("kv_transfer_params"));
            assertTrue(d.chats.isEmpty());
        }
    }

    @Test
    void unreachableDecoderIsRetriedOnAnother() throws Exception {
        FakeWorker dead = new FakeWorker(Role.DECODE, "dead");
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1")) {
            ProxySettings settings = ProxyFixture.settings(p, dead, d).build(); // "dead" first in round-robin order
            dead.close(); // its port now refuses connections
            try (ProxyFixture f = new ProxyFixture(settings)) {
                HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
                assertEquals(200, response.statusCode(), response.body());
                d.next();
                assertEquals(1, f.proxy.counters().retries(Role.DECODE));
            }
        }
    }
}
