package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

/** The client against canned answers: plain, streamed, error events, broken streams, refusals. */
class DemoHttpTest {
    private final DemoHttp http = new DemoHttp(Duration.ofSeconds(10));
    private HttpServer server;

    private String serve(int status, String contentType, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        server.createContext("/", x -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().set("Content-Type", contentType);
            x.sendResponseHeaders(status, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static Prompt prompt() {
        return new Prompt(DemoModels.R1, "hi", List.of(), 8);
    }

    @Test
    void aPlainAnswerGivesItsContentAndFinishReason() throws Exception {
        String base = serve(200, "application/json", FakeAnswers.completion("hello", "length"));
        ChatAnswer a = http.chat(base, prompt());
        assertTrue(a.ok());
        assertEquals("hello", a.content());
        assertEquals("length", a.finishReason());
        assertTrue(a.chunks().isEmpty());
    }

    @Test
    void aStreamIsReadChunkByChunkToDone() throws Exception {
        String base = serve(200, "text/event-stream", ": keep-alive\n\n" + FakeAnswers.sse("abc"));
        List<String> seen = new ArrayList<>();
        ChatAnswer a = http.stream(base, prompt(), seen::add);
        assertTrue(a.ok(), a.summary());
        assertEquals("abc", a.content());
        assertEquals(List.of("a", "b", "c"), a.chunks(), "the role-only chunk carries no content");
        assertEquals(List.of("a", "b", "c"), seen);
        assertEquals("length", a.finishReason());
        assertTrue(a.done());
        assertTrue(a.firstContentNanos() > 0 && a.firstContentNanos() <= a.totalNanos());
    }

    @Test
    void anErrorEventAfterChunksIsKeptAndTheStreamReadToDone() throws Exception {
        String events = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n"
                + "data: {\"error\":{\"message\":\"decode died\",\"type\":\"server_error\",\"code\":\"upstream_error\"}}\n\n"
                + "data: [DONE]\n\n";
        ChatAnswer a = http.stream(serve(200, "text/event-stream", events), prompt(), c -> { });
        assertFalse(a.ok());
        assertEquals("decode died (upstream_error)", a.error());
        assertTrue(a.done());
        assertEquals("a", a.content());
    }

    @Test
    void aStreamThatEndsWithoutDoneIsAnError() throws Exception {
        String events = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n";
        ChatAnswer a = http.stream(serve(200, "text/event-stream", events), prompt(), c -> { });
        assertFalse(a.ok());
        assertEquals("stream ended without [DONE]", a.error());
    }

    @Test
    void anHttpErrorGivesItsStatusAndOpenAiMessage() throws Exception {
        String base = serve(503, "application/json",
                "{\"error\":{\"message\":\"no healthy decode\",\"type\":\"server_error\",\"code\":\"no_healthy_instance\"}}");
        for (ChatAnswer a : List.of(http.chat(base, prompt()), http.stream(base, prompt(), c -> { }))) {
            assertFalse(a.ok());
            assertEquals(503, a.status());
            assertEquals("no healthy decode (no_healthy_instance)", a.error());
            assertEquals("HTTP 503: no healthy decode (no_healthy_instance)", a.summary());
        }
    }

    @Test
    void nobodyListeningIsStatusZeroNotAnException() throws Exception {
        int port = FreePorts.pick(1).getFirst();
        ChatAnswer a = http.chat("http://127.0.0.1:" + port, prompt());
        assertEquals(0, a.status());
        assertTrue(a.error().startsWith("no answer from http://127.0.0.1:" + port), a.error());
        assertNull(a.finishReason());
    }

    @Test
    void equalAnswersNeedEqualTextAndFinishReason() {
        ChatAnswer a = new ChatAnswer(200, "xy", "length", null, List.of(), false, -1, 1);
        assertTrue(a.sameAs(new ChatAnswer(200, "xy", "length", null, List.of("x", "y"), true, 1, 2)));
        assertFalse(a.sameAs(new ChatAnswer(200, "xy", "stop", null, List.of(), false, -1, 1)));
        assertFalse(a.sameAs(new ChatAnswer(200, "xz", "length", null, List.of(), false, -1, 1)));
        assertFalse(a.sameAs(ChatAnswer.failed(502, "x", 1)));
    }

    @Test
    void theRequestBodyPutsTextBeforeMediaAndTextOnlyAsAString() throws Exception {
        Prompt p = new Prompt(DemoModels.R2, "look", List.of(Prompt.Media.image("data:image/png;base64,AA"),
                Prompt.Media.video("data:image/gif;base64,BB", 8)), 5);
        var body = FakeAnswers.JSON.readTree(p.body(true));
        assertEquals(DemoModels.R2, body.path("model").asText());
        assertTrue(body.path("stream").asBoolean());
        assertEquals(5, body.path("max_tokens").asInt());
        var parts = body.path("messages").path(0).path("content");
        assertEquals("text", parts.path(0).path("type").asText());
        assertEquals("data:image/png;base64,AA", parts.path(1).path("image_url").path("url").asText());
        assertEquals("data:image/gif;base64,BB", parts.path(2).path("video_url").path("url").asText());
        assertEquals("hi", FakeAnswers.JSON.readTree(prompt().body(false)).path("messages").path(0).path("content").asText());
    }
}
