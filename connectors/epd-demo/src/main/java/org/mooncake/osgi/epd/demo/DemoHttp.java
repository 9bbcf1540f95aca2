package org.mooncake.osgi.epd.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The demo's HTTP: chat completions (plain and streamed), Prometheus scrapes, health and the
 * workers' store probe. One JDK client over HTTP/1.1 (the workers and proxy speak it; h2c
 * upgrade attempts only cost a round trip).
 */
public final class DemoHttp {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client;
    private final Duration requestTimeout;

    public DemoHttp(Duration requestTimeout) {
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        this.requestTimeout = requestTimeout;
    }

    /** Status and body of a GET; IOException when nothing answers. */
    public HttpResponse<String> get(String url, Duration timeout) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> post(String url, String json) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(requestTimeout)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Scrapes {@code base/metrics}. */
    public Metrics metrics(String base) throws IOException, InterruptedException {
        HttpResponse<String> r = get(base + "/metrics", Duration.ofSeconds(10));
        if (r.statusCode() != 200) {
            throw new IOException("GET " + base + "/metrics answered " + r.statusCode() + ": " + r.body());
        }
        return Metrics.parse(r.body());
    }

    /** A non-streamed chat completion; never throws for an HTTP or connection failure, which it reports in the answer. */
    public ChatAnswer chat(String base, Prompt prompt) throws InterruptedException {
        long start = System.nanoTime();
        try {
            HttpResponse<String> r = post(base + "/v1/chat/completions", prompt.body(false));
            long took = System.nanoTime() - start;
            JsonNode body = parse(r.body());
            if (r.statusCode() / 100 != 2) {
                return ChatAnswer.failed(r.statusCode(), errorMessage(body, r.body()), took);
            }
            JsonNode choice = body.path("choices").path(0);
            if (!choice.path("message").path("content").isTextual()) {
                return ChatAnswer.failed(r.statusCode(), "no choices[0].message.content in " + abbreviate(r.body()), took);
            }
            return new ChatAnswer(r.statusCode(), choice.path("message").path("content").asText(),
                    choice.path("finish_reason").isTextual() ? choice.path("finish_reason").asText() : null, null,
                    List.of(), false, -1, took);
        } catch (IOException e) {
            return ChatAnswer.failed(0, "no answer from " + base + ": " + e, System.nanoTime() - start);
        }
    }

    /**
     * A streamed chat completion: reads {@code data:} events until {@code [DONE]} or the end of the
     * stream, handing each content delta to {@code onChunk} as it arrives (a test kills a worker
     * after the first). An error event is kept in the answer's {@code error}; the stream is read on
     * to its end, as a client would.
     */
    public ChatAnswer stream(String base, Prompt prompt, Consumer<String> onChunk) throws InterruptedException {
        long start = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions")).timeout(requestTimeout)
                .header("Content-Type", "application/json").header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(prompt.body(true))).build();
        try {
            HttpResponse<InputStream> r = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() / 100 != 2) {
                String text;
                try (InputStream in = r.body()) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                return ChatAnswer.failed(r.statusCode(), errorMessage(parse(text), text), System.nanoTime() - start);
            }
            return readEvents(r, start, onChunk);
        } catch (IOException e) {
            return ChatAnswer.failed(0, "no answer from " + base + ": " + e, System.nanoTime() - start);
        }
    }

    private static ChatAnswer readEvents(HttpResponse<InputStream> r, long start, Consumer<String> onChunk) {
        List<String> chunks = new ArrayList<>();
        StringBuilder content = new StringBuilder();
        String finish = null;
        String error = null;
        boolean done = false;
        long first = -1;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.startsWith("data:")) {
                    continue; // blank separators, comments, event names
                }
                String data = line.substring(5).strip();
                if (data.equals("[DONE]")) {
                    done = true;
                    break;
                }
                JsonNode event = parse(data);
                if (event.has("error")) {
                    error = errorMessage(event, data);
                    continue;
                }
                JsonNode choice = event.path("choices").path(0);
                String delta = choice.path("delta").path("content").asText("");
                if (!delta.isEmpty()) {
                    if (first < 0) {
                        first = System.nanoTime() - start;
                    }
                    chunks.add(delta);
                    content.append(delta);
                    onChunk.accept(delta);
                }
                if (choice.path("finish_reason").isTextual()) {
                    finish = choice.path("finish_reason").asText();
                }
            }
        } catch (IOException e) {
            error = error != null ? error : "stream broke: " + e;
        }
        if (!done && error == null) {
            error = "stream ended without [DONE]";
        }
        return new ChatAnswer(r.statusCode(), content.toString(), finish, error, chunks, done, first,
                System.nanoTime() - start);
    }

    /** The worker's {@code /epd/probe}: {@code count} plain store puts, then gets, of {@code bytes} each. */
    public ProbeResult probe(String base, long bytes, int count, long gapMs) throws IOException, InterruptedException {
        String body = JSON.createObjectNode().put("bytes", bytes).put("count", count).put("gap_ms", gapMs).toString();
        HttpResponse<String> r = post(base + "/epd/probe", body);
        if (r.statusCode() != 200) {
            throw new IOException("POST " + base + "/epd/probe " + body + " answered " + r.statusCode() + ": "
                    + abbreviate(r.body()));
        }
        JsonNode n = parse(r.body());
        return new ProbeResult(ProbeResult.Figure.of(n.path("put")), ProbeResult.Figure.of(n.path("get")));
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static String errorMessage(JsonNode body, String raw) {
        JsonNode e = body.path("error");
        if (e.isObject()) {
            String code = e.path("code").asText("");
            return e.path("message").asText("") + (code.isEmpty() ? "" : " (" + code + ")");
        }
        return abbreviate(raw);
    }

    static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
