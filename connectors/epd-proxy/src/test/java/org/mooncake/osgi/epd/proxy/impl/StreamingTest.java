package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** Streamed decodes: relayed event by event, retried only before the first, aborted when the client leaves. */
class StreamingTest {

    /** The data of each event of an SSE body. */
    static List<String> events(String body) {
        List<String> out = new ArrayList<>();
        for (String block : body.split("\n\n")) {
            if (block.startsWith("data: ")) {
                out.add(block.substring(6));
            }
        }
        return out;
    }

    /** The delta contents of a streamed body, in order; the body must end with [DONE]. */
    static List<String> contents(String body) throws IOException {
        List<String> events = events(body);
        assertEquals("[DONE]", events.getLast(), body);
        List<String> out = new ArrayList<>();
        for (String e : events.subList(0, events.size() - 1)) {
            out.add(Json.MAPPER.readTree(e).path("choices").path(0).path("delta").path("content").asText());
        }
        return out;
    }

    /** Reads the next event's data line (skipping the blank separator). */
    static String nextEvent(BufferedReader reader) throws IOException {
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.startsWith("data: ")) {
                return line.substring(6);
            }
        }
        return null;
    }

    @Test
    void relaysEachChunkAsItArrives() throws Exception {
        CountDownLatch clientSawFirst = new CountDownLatch(1);
        AtomicBoolean firstReachedClientAlone = new AtomicBoolean();
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            d.chat = (r, ex) -> {
                OutputStream out = FakeWorker.startSse(ex);
                FakeWorker.event(out, FakeWorker.chunk("cmpl-decoder", "one"));
                // chunk two is only sent once the client has chunk one
                firstReachedClientAlone.set(clientSawFirst.await(5, TimeUnit.SECONDS));
                FakeWorker.event(out, FakeWorker.chunk("cmpl-decoder", "two"));
                FakeWorker.event(out, "[DONE]");
            };
            HttpRequest request = HttpRequest.newBuilder(f.base.resolve("/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(10)).header("X-Request-Id", "stream-1")
                    .POST(HttpRequest.BodyPublishers.ofString(ProxyFixture.textOnly(true))).build();
            HttpResponse<InputStream> response = f.http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("Content-Type").orElseThrow().startsWith("text/event-stream"));
            assertEquals("stream-1", response.headers().firstValue("X-Request-Id").orElseThrow());
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                JsonNode first = Json.MAPPER.readTree(nextEvent(reader));
                clientSawFirst.countDown();
                assertEquals("one", first.path("choices").path(0).path("delta").path("content").asText());
                assertEquals("stream-1", first.path("id").asText(), "chunk ids carry the request id");
                JsonNode second = Json.MAPPER.readTree(nextEvent(reader));
                assertEquals("two", second.path("choices").path(0).path("delta").path("content").asText());
                assertEquals("[DONE]", nextEvent(reader));
                assertNull(nextEvent(reader));
            }
            assertTrue(firstReachedClientAlone.get(), "chunk one reached the client only after chunk two was sent");
            assertEquals(1, f.proxy.counters().requests("ok"));
            assertEquals(1, f.proxy.counters().stageCount(Role.DECODE));
        }
    }

    @Test
    void decodeRefusedBeforeTheFirstChunkIsRetriedOnAnotherDecoder() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker bad = new FakeWorker(Role.DECODE, "d-bad");
                FakeWorker good = new FakeWorker(Role.DECODE, "d-good");
                ProxyFixture f = ProxyFixture.settings(p, bad, good).start()) {
            bad.chat = (r, ex) -> FakeWorker.json(ex, 503, "{\"error\":{\"message\":\"overloaded\"}}");
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(true));
            assertEquals(200, response.statusCode(), response.body());
            assertEquals(List.of("Hel", "lo", "!"), contents(response.body()));
            FakeWorker.Received first = bad.next();
            FakeWorker.Received second = good.next();
            assertEquals(first.body(), second.body(), "the retry sends the same decode request");
            assertEquals(FakeWorker.kvParams("p1"), second.body().path("kv_transfer_params"));
            assertEquals(1, f.proxy.counters().retries(Role.DECODE));
        }
    }

    @Test
    void decodeStreamEndingBeforeItsFirstEventIsRetried() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker bad = new FakeWorker(Role.DECODE, "d-bad");
                FakeWorker good = new FakeWorker(Role.DECODE, "d-good");
                ProxyFixture f = ProxyFixture.settings(p, bad, good).start()) {
            bad.chat = (r, ex) -> FakeWorker.startSse(ex); // 200, then the stream ends with no event
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(true));
            assertEquals(200, response.statusCode());
            assertEquals(List.of("Hel", "lo", "!"), contents(response.body()));
            bad.next();
            good.next();
            assertEquals(1, f.proxy.counters().retries(Role.DECODE));
        }
    }

    @Test
    void decoderEndingMidStreamEndsTheClientStreamWithAnErrorEvent() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                FakeWorker spare = new FakeWorker(Role.DECODE, "d2");
                ProxyFixture f = ProxyFixture.settings(p, d, spare).start()) {
            d.chat = (r, ex) -> FakeWorker.event(FakeWorker.startSse(ex), FakeWorker.chunk("c", "partial"));
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(true));
            assertEquals(200, response.statusCode());
            List<String> events = events(response.body());
            assertEquals(3, events.size(), response.body());
            assertEquals("partial",
                    Json.MAPPER.readTree(events.get(0)).path("choices").path(0).path("delta").path("content").asText());
            JsonNode error = Json.MAPPER.readTree(events.get(1)).path("error");
            assertEquals("server_error", error.path("type").asText());
            assertEquals("upstream_error", error.path("code").asText());
            assertTrue(error.path("message").asText().contains("without [DONE]"), error.toString());
            assertEquals("[DONE]", events.get(2));
            assertTrue(spare.chats.isEmpty(), "no retry once the client had a chunk");
            assertEquals(1, f.proxy.counters().requests("stream_error"));
        }
    }

    @Test
    void decoderStallingMidStreamEndsTheClientStreamAfterTheIdleTimeout() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).timeouts(5000, 5000, 5000, 300).start()) {
            d.chat = (r, ex) -> {
                FakeWorker.event(FakeWorker.startSse(ex), FakeWorker.chunk("c", "partial"));
                release.await(10, TimeUnit.SECONDS);
            };
            HttpResponse<String> response = f.post("/v1/chat/completions", ProxyFixture.textOnly(true));
            List<String> events = events(response.body());
            assertEquals(3, events.size(), response.body());
            assertEquals("upstream_timeout", Json.MAPPER.readTree(events.get(1)).path("error").path("code").asText());
            assertEquals("[DONE]", events.get(2));
        } finally {
            release.countDown();
        }
    }

    @Test
    void clientDisconnectMidStreamAbortsTheDecode() throws Exception {
        CountDownLatch decoderSawClose = new CountDownLatch(1);
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            d.chat = (r, ex) -> {
                OutputStream out = FakeWorker.startSse(ex);
                FakeWorker.event(out, FakeWorker.chunk("c", "first"));
                try {
                    // a decoder keeps generating: at most 20 s of tokens, until its connection goes
                    for (int i = 0; i < 4000; i++) {
                        LockSupport.parkNanos(5_000_000);
                        FakeWorker.event(out, FakeWorker.chunk("c", "more" + i));
                    }
                } catch (IOException connectionClosed) {
                    decoderSawClose.countDown();
                }
            };
            byte[] body = ProxyFixture.textOnly(true).getBytes(StandardCharsets.UTF_8);
            try (Socket client = new Socket("127.0.0.1", f.port)) {
                client.setSoTimeout(10_000);
                OutputStream out = client.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                InputStream in = client.getInputStream();
                StringBuilder seen = new StringBuilder();
                byte[] buffer = new byte[4096];
                while (!seen.toString().contains("first")) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        throw new AssertionError("stream ended before the first chunk: " + seen);
                    }
                    seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
                assertTrue(seen.toString().startsWith("HTTP/1.1 200"), seen.toString());
            } // the client goes away mid-stream
            assertTrue(decoderSawClose.await(15, TimeUnit.SECONDS), "the decoder's connection was not closed");
            assertEquals(1, f.proxy.counters().requests("client_disconnected"));
        }
    }

    @Test
    void aStreamNobodyRelaysIsReleasedAfterTheIdleTimeout() throws Exception {
        CountDownLatch decoderSawClose = new CountDownLatch(1);
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                EpdProxy proxy = new EpdProxy(ProxyFixture.settings(p, d).timeouts(5000, 5000, 5000, 200).build())) {
            d.chat = (r, ex) -> {
                OutputStream out = FakeWorker.startSse(ex);
                try {
                    for (int i = 0; i < 4000; i++) {
                        FakeWorker.event(out, FakeWorker.chunk("c", "t" + i));
                        LockSupport.parkNanos(5_000_000);
                    }
                } catch (IOException connectionClosed) {
                    decoderSawClose.countDown();
                }
            };
            ChatOutcome outcome = proxy.chat(new java.io.ByteArrayInputStream(
                    ProxyFixture.textOnly(true).getBytes(StandardCharsets.UTF_8)), null, "orphan");
            assertTrue(outcome instanceof StreamReply, String.valueOf(outcome));
            // the front never calls relayTo
            assertTrue(decoderSawClose.await(15, TimeUnit.SECONDS), "the orphaned decode was not aborted");
            assertEquals(1, proxy.counters().requests("client_disconnected"));
        }
    }
}
