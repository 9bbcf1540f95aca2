package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** Every 4xx the proxy answers itself, in OpenAI's error shape, without calling a worker. */
class ClientErrorsTest {
    static FakeWorker e;
    static FakeWorker p;
    static FakeWorker d;
    static ProxyFixture f;

    @BeforeAll
    static void start() throws Exception {
        e = new FakeWorker(Role.ENCODE, "e1");
        p = new FakeWorker(Role.PREFILL, "p1");
        d = new FakeWorker(Role.DECODE, "d1");
        f = ProxyFixture.settings(e, p, d).maxBody(4096).start();
    }

    @AfterAll
    static void stop() {
        f.close();
        e.close();
        p.close();
        d.close();
    }

    /** Asserts the OpenAI error shape and returns the error object. */
    static JsonNode assertError(HttpResponse<String> r, int status, String type, String code) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        JsonNode error = ProxyFixture.json(r).path("error");
        assertTrue(error.isObject(), r.body());
        assertTrue(error.path("message").isTextual() && !error.path("message").asText().isBlank(), r.body());
        assertEquals(type, error.path("type").asText());
        assertTrue(error.has("param"), r.body());
        assertEquals(code, error.path("code").asText(), r.body());
        assertTrue(e.chats.isEmpty() && p.chats.isEmpty() && d.chats.isEmpty(), "a worker was called");
        return error;
    }

    HttpResponse<String> chat(String body) throws Exception {
        return f.post("/v1/chat/completions", body);
    }

    @Test
    void malformedJsonIs400() throws Exception {
        assertError(chat("{\"model\": \"test-model\", \"messages\": ["), 400, "invalid_request_error", "invalid_json");
        assertError(chat("[1,2]"), 400, "invalid_request_error", "invalid_json");
        assertError(chat("{} {}"), 400, "invalid_request_error", "invalid_json");
    }

    @Test
    void missingOrEmptyMessagesIs400() throws Exception {
        JsonNode missing = assertError(chat("{\"model\":\"test-model\"}"), 400, "invalid_request_error",
                "missing_required_parameter");
        assertEquals("messages", missing.path("param").asText());
        JsonNode empty = assertError(chat("{\"model\":\"test-model\",\"messages\":[]}"), 400, "invalid_request_error",
                "invalid_value");
        assertEquals("messages", empty.path("param").asText());
        assertError(chat("{\"model\":\"test-model\",\"messages\":\"hi\"}"), 400, "invalid_request_error",
                "invalid_value");
    }

    @Test
    void missingModelIs400() throws Exception {
        JsonNode error = assertError(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"), 400,
                "invalid_request_error", "missing_required_parameter");
        assertEquals("model", error.path("param").asText());
    }

    @Test
    void audioPartsAre400() throws Exception {
        JsonNode inputAudio = assertError(chat(ProxyFixture.chatBody(false, "[{\"role\":\"user\",\"content\":["
                + "{\"type\":\"text\",\"text\":\"listen\"},{\"type\":\"input_audio\",\"input_audio\":"
                + "{\"data\":\"AAAA\",\"format\":\"wav\"}}]}]")), 400, "invalid_request_error", "unsupported_content_part");
        assertEquals("messages[0].content[1].type", inputAudio.path("param").asText());
        assertTrue(inputAudio.path("message").asText().contains("input_audio"));
        assertError(chat(ProxyFixture.chatBody(false, "[{\"role\":\"user\",\"content\":[{\"type\":\"audio_url\","
                + "\"audio_url\":{\"url\":\"http://a/b.wav\"}}]}]")), 400, "invalid_request_error",
                "unsupported_content_part");
    }

    @Test
    void mediaPartWithoutUsableUrlIs400() throws Exception {
        assertError(chat(ProxyFixture.chatBody(false, "[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                + "\"image_url\":{}}]}]")), 400, "invalid_request_error", "missing_required_parameter");
        JsonNode bad = assertError(chat(ProxyFixture.chatBody(false, "[{\"role\":\"user\",\"content\":[{\"type\":"
                + "\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64\"}}]}]")), 400, "invalid_request_error",
                "invalid_value");
        assertEquals("messages[0].content[0].image_url.url", bad.path("param").asText());
    }

    @Test
    void streamThatIsNoBooleanIs400() throws Exception {
        assertError(chat("{\"model\":\"test-model\",\"stream\":\"yes\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"),
                400, "invalid_request_error", "invalid_type");
    }

    @Test
    void bodyOverTheLimitIs413() throws Exception {
        String big = ProxyFixture.chatBody(false, "[{\"role\":\"user\",\"content\":\"" + "x".repeat(5000) + "\"}]");
        assertError(chat(big), 413, "invalid_request_error", "request_too_large");
        // without a Content-Length (chunked): refused once the limit is passed
        HttpRequest chunked = HttpRequest.newBuilder(f.base.resolve("/v1/chat/completions"))
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes())))
                .build();
        assertError(f.http.send(chunked, HttpResponse.BodyHandlers.ofString()), 413, "invalid_request_error",
                "request_too_large");
    }

    @Test
    void unknownModelIs404() throws Exception {
        JsonNode error = assertError(chat("{\"model\":\"gpt-9\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"),
                404, "invalid_request_error", "model_not_found");
        assertEquals("model", error.path("param").asText());
        assertTrue(error.path("message").asText().contains("gpt-9"));
    }

    @Test
    void errorsCarryTheRequestId() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", "nope", "X-Request-Id", "bad-1");
        assertEquals(400, r.statusCode());
        assertEquals("bad-1", r.headers().firstValue("X-Request-Id").orElseThrow());
        assertFalse(f.proxy.counters().requests("bad_request") == 0);
    }
}
