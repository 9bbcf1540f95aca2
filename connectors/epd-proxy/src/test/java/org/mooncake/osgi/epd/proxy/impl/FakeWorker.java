package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A worker stub on the JDK's HTTP server, speaking the worker contract: {@code POST
 * /v1/chat/completions}, {@code GET /v1/models}, {@code GET /health}. It records every chat request
 * it receives; its chat behaviour is replaceable per test.
 */
final class FakeWorker implements AutoCloseable {
    static final String MODEL = "test-model";

    /** A chat request as the worker received it. */
    record Received(String path, Headers headers, JsonNode body) {
        String requestId() {
            return headers.getFirst("X-Request-Id");
        }
    }

    @FunctionalInterface
    interface Handler {
        void handle(Received request, HttpExchange exchange) throws Exception;
    }

    final Role role;
    final String name;
    final BlockingQueue<Received> chats = new LinkedBlockingQueue<>();
    final AtomicInteger health = new AtomicInteger(200);
    final AtomicInteger modelCalls = new AtomicInteger();
    volatile List<String> models = List.of(MODEL);
    volatile Handler chat;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpServer server;

    FakeWorker(Role role, String name) throws IOException {
        this.role = role;
        this.name = name;
        this.chat = switch (role) {
            case ENCODE -> FakeWorker::encodeOk;
            case PREFILL -> (r, ex) -> prefillOk(r, ex, name);
            case DECODE -> FakeWorker::decodeOk;
        };
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(executor);
        server.createContext("/v1/chat/completions", ex -> {
            try (ex) {
                Received r = new Received(ex.getRequestURI().getPath(), ex.getRequestHeaders(),
                        Json.read(ex.getRequestBody().readAllBytes()));
                chats.add(r);
                chat.handle(r, ex);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        });
        server.createContext("/health", ex -> {
            try (ex) {
                int status = health.get();
                json(ex, status, status == 200 ? "{\"status\":\"up\"}" : "{\"status\":\"down\"}");
            }
        });
        server.createContext("/v1/models", ex -> {
            try (ex) {
                modelCalls.incrementAndGet();
                List<Object> data = new ArrayList<>();
                for (String m : models) {
                    data.add(Map.of("id", m, "object", "model", "created", 1, "owned_by", name));
                }
                json(ex, 200, Json.text(Map.of("object", "list", "data", data)));
            }
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The next chat request received, waiting up to 5 s; fails the test when none came. */
    Received next() throws InterruptedException {
        Received r = chats.poll(5, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError(name + " received no chat request");
        }
        return r;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- default behaviours and helpers

    static ObjectNode completion(String id, String model, String content) {
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("id", id);
        c.put("object", "chat.completion");
        c.put("created", 1);
        c.put("model", model);
        ObjectNode choice = c.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", content);
        choice.put("finish_reason", "stop");
        return c;
    }

    static void encodeOk(Received r, HttpExchange ex) throws IOException {
        ObjectNode c = completion("cmpl-encoder", r.body().path("model").asText(), "");
        JsonNode part = r.body().path("messages").path(0).path("content").path(0);
        c.putObject("ec_transfer_params").putArray("items").addObject().put("id", part.path("uuid").asText())
                .put("key", "embedding@" + part.path("uuid").asText()).put("bytes", 1024).put("saved", true);
        json(ex, 200, Json.text(c));
    }

    /** The kv_transfer_params a prefill stub answers with (nested, to prove it is copied untouched). */
    static ObjectNode kvParams(String engine) {
        ObjectNode kv = Json.MAPPER.createObjectNode();
        kv.put("do_remote_prefill", true);
        kv.put("do_remote_decode", false);
        kv.put("remote_engine_id", engine);
        kv.putArray("remote_block_ids").add(3).add(1).add(4);
        kv.put("remote_host", "10.0.0.7");
        kv.put("remote_port", 5557);
        kv.putObject("extra").putArray("a").add(1).addObject().putNull("b");
        return kv;
    }

    static void prefillOk(Received r, HttpExchange ex, String engine) throws IOException {
        ObjectNode c = completion("cmpl-prefill", r.body().path("model").asText(), "x");
        c.set("kv_transfer_params", kvParams(engine));
        json(ex, 200, Json.text(c));
    }

    static void decodeOk(Received r, HttpExchange ex) throws IOException {
        if (r.body().path("stream").asBoolean(false)) {
            OutputStream out = startSse(ex);
            for (String piece : List.of("Hel", "lo", "!")) {
                event(out, chunk("cmpl-decoder", piece));
            }
            event(out, "[DONE]");
            return;
        }
        json(ex, 200, Json.text(completion("cmpl-decoder", r.body().path("model").asText(), "Hello!")));
    }

    static String chunk(String id, String content) {
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("id", id);
        c.put("object", "chat.completion.chunk");
        c.put("created", 1);
        c.put("model", MODEL);
        c.putArray("choices").addObject().put("index", 0).putObject("delta").put("content", content);
        return Json.text(c);
    }

    static void json(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    static OutputStream startSse(HttpExchange ex) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        return ex.getResponseBody();
    }

    static void event(OutputStream out, String data) throws IOException {
        out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
