package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for every process of the demo, in process or as {@code bin/mooncake start ...} of a
 * fake distribution: the same profiles, variables and endpoints, and counters that move as the
 * real connectors' do, with an answer that is a hash of the request. {@code faults} breaks one
 * thing on purpose: {@code no-prefill-hit}, {@code wrong-aggregated}, {@code encoder-exit} (at start),
 * {@code prefill-exit} (at its first request).
 */
final class FakeNode implements AutoCloseable {
    private final String profile;
    private final Map<String, String> vars;
    private final Set<String> faults;
    private final HttpServer server;
    private final FakeCounters counters = new FakeCounters();
    private final Set<String> stored = ConcurrentHashMap.newKeySet();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ModelSize size;

    private FakeNode(String profile, Map<String, String> vars, Set<String> faults) throws IOException {
        this.profile = profile;
        this.vars = vars;
        this.faults = faults;
        String models = vars.getOrDefault("models", "x=tiny:1");
        this.size = ModelSize.of(models.substring(models.indexOf('=') + 1, models.indexOf(':')));
        int port = Integer.parseInt(vars.containsKey("http.port") ? vars.get("http.port") : vars.get("admin.port"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 50);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    static FakeNode start(String profile, Map<String, String> vars, Set<String> faults) throws IOException {
        return new FakeNode(profile, vars, faults);
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** {@code start --profile P --headless --instance I --set k=v ...}, as bin/mooncake takes it. */
    public static void main(String[] args) throws Exception {
        String profile = null;
        String instance = null;
        Map<String, String> vars = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--profile" -> profile = args[++i];
                case "--instance" -> instance = args[++i];
                case "--set" -> {
                    String kv = args[++i];
                    vars.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                default -> { }
            }
        }
        Set<String> faults = Set.of(System.getProperty("fake.faults", "").split(","));
        System.out.println("fake " + profile + ": starting with " + vars);
        // as the real launcher does, each instance keeps its framework cache under runtime/
        java.nio.file.Files.createDirectories(java.nio.file.Path.of(System.getProperty("mooncake.home"), "runtime",
                instance));
        if (faults.contains("encoder-exit") && "epd-encoder".equals(profile)) {
            System.out.println("fake epd-encoder: no model to serve");
            System.exit(3);
        }
        FakeNode node = start(profile, vars, faults);
        System.out.println("mooncake: http endpoint on http://127.0.0.1:" + node.port());
        new CountDownLatch(1).await(); // serves until SIGTERM ends the JVM
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            byte[] body = x.getRequestBody().readAllBytes();
            switch (path) {
                case "/health" -> reply(x, 200, "{\"status\":\"UP\"}");
                case "/metrics" -> reply(x, 200, counters.render());
                case "/instances" -> reply(x, 200, instances());
                case "/epd/probe" -> reply(x, 200, probe(FakeAnswers.JSON.readTree(body)));
                case "/v1/chat/completions" -> chat(x, FakeAnswers.JSON.readTree(body));
                default -> reply(x, 404, "{}");
            }
        } catch (IOException | RuntimeException e) {
            e.printStackTrace();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void chat(HttpExchange x, JsonNode req) throws IOException, InterruptedException {
        boolean stream = req.path("stream").asBoolean(false);
        List<JsonNode> media = media(req);
        String model = req.path("model").asText();
        if (profile.equals("epd-prefill") && faults.contains("prefill-exit")) {
            System.out.println("fake epd-prefill: dying");
            System.exit(7);
        }
        switch (profile) {
            case "epd-encoder" -> {
                for (JsonNode m : media) {
                    if (stored.add(model + "|" + url(m))) {
                        counters.add("mooncake_epd_hidden_state_lookups_total", "outcome=\"miss\"", 1);
                        counters.add("mooncake_epd_worker_encoder_passes_total", "model=\"" + model + "\"", 1);
                        transfer("mooncake_epd_hidden_state_", "put", bytes(m));
                        counters.add("mooncake_client_transfer_bytes_total", "protocol=\"tcp\",op=\"put\"", bytes(m));
                    } else {
                        counters.add("mooncake_epd_hidden_state_lookups_total", "outcome=\"hit\"", 1);
                    }
                }
                reply(x, 200, FakeAnswers.completion("", "stop"));
            }
            case "epd-prefill" -> {
                for (JsonNode m : media) {
                    if (!faults.contains("no-prefill-hit")) {
                        counters.add("mooncake_epd_hidden_state_lookups_total", "outcome=\"hit\"", 1);
                    }
                    transfer("mooncake_epd_hidden_state_", "get", bytes(m));
                    counters.add("mooncake_client_transfer_bytes_total", "protocol=\"tcp\",op=\"get\"", bytes(m));
                }
                counters.add("mooncake_epd_worker_prefill_tokens_total", "model=\"" + model + "\"", 10);
                transfer("mooncake_epd_kv_", "put", 8192);
                counters.add("mooncake_client_transfer_bytes_total", "protocol=\"tcp\",op=\"put\"", 8192);
                ObjectNode c = (ObjectNode) FakeAnswers.JSON.readTree(FakeAnswers.completion("a", "length"));
                c.putObject("kv_transfer_params").put("do_remote_prefill", true);
                reply(x, 200, c.toString());
            }
            case "epd-decode", "epd-aggregated" -> {
                if (profile.equals("epd-decode")) {
                    transfer("mooncake_epd_kv_", "get", 8192);
                    counters.add("mooncake_client_transfer_bytes_total", "protocol=\"tcp\",op=\"get\"", 8192);
                }
                String answer = FakeAnswers.answer(req, profile.equals("epd-aggregated") && faults.contains("wrong-aggregated"));
                counters.add("mooncake_epd_worker_decode_tokens_total", "model=\"" + model + "\"", answer.length());
                if (stream) {
                    x.getResponseHeaders().set("Content-Type", "text/event-stream");
                    reply(x, 200, FakeAnswers.sse(answer));
                } else {
                    reply(x, 200, FakeAnswers.completion(answer, "length"));
                }
            }
            case "epd-proxy" -> proxy(x, req, media, stream);
            default -> reply(x, 404, "{}");
        }
    }

    /** Encode each item, prefill, then relay the decode's answer, as the real proxy does. */
    private void proxy(HttpExchange x, JsonNode req, List<JsonNode> media, boolean stream)
            throws IOException, InterruptedException {
        for (JsonNode m : media) {
            ObjectNode child = FakeAnswers.JSON.createObjectNode().put("model", req.path("model").asText());
            child.putArray("messages").addObject().put("role", "user").putArray("content").add(m);
            post(vars.get("encoders"), child.toString());
        }
        ObjectNode prefill = req.deepCopy();
        prefill.put("max_tokens", 1).put("stream", false);
        post(vars.get("prefills"), prefill.toString());
        HttpResponse<InputStream> decode = client.send(HttpRequest.newBuilder(URI.create(vars.get("decodes")
                + "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(req.toString())).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        if (stream) {
            x.getResponseHeaders().set("Content-Type", "text/event-stream");
        }
        x.sendResponseHeaders(decode.statusCode(), 0);
        try (InputStream in = decode.body(); OutputStream out = x.getResponseBody()) {
            in.transferTo(out);
        }
    }

    private void post(String base, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(base + " answered " + r.statusCode());
        }
    }

    /** A connector transfer at 1 GB/s: ok outcome, bytes, time. */
    private void transfer(String prefix, String op, long bytes) {
        counters.add(prefix + "transfers_total", "op=\"" + op + "\",outcome=\"ok\"", 1);
        counters.add(prefix + "bytes_total", "op=\"" + op + "\"", bytes);
        counters.add(prefix + "transfer_seconds_sum", "op=\"" + op + "\"", bytes / 1e9);
        counters.add(prefix + "transfer_seconds_count", "op=\"" + op + "\"", 1);
    }

    private long bytes(JsonNode part) {
        return size.hiddenBytes(part.has("video_url") ? CaseMatrix.VIDEO_FRAMES : 1);
    }

    private static String url(JsonNode part) {
        return part.has("video_url") ? part.path("video_url").path("url").asText() : part.path("image_url").path("url").asText();
    }

    private static List<JsonNode> media(JsonNode req) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode m : req.path("messages")) {
            for (JsonNode part : m.path("content")) {
                if (part.has("image_url") || part.has("video_url")) {
                    out.add(part);
                }
            }
        }
        return out;
    }

    /** Plain puts and gets at 1250 MiB/s: faster than the fake connectors' 1 GB/s, so the ratio is 0.76. */
    private static String probe(JsonNode req) {
        long total = req.path("bytes").asLong() * req.path("count").asLong();
        ObjectNode out = FakeAnswers.JSON.createObjectNode();
        for (String op : List.of("put", "get")) {
            out.putObject(op).put("objects", req.path("count").asLong()).put("bytes", total)
                    .put("seconds", total / (1250.0 * (1 << 20))).put("mib_per_s", 1250.0);
        }
        return out.toString();
    }

    private String instances() {
        ObjectNode root = FakeAnswers.JSON.createObjectNode();
        ArrayNode list = root.putArray("instances");
        for (String[] r : new String[][] {{"encode", "encoders"}, {"prefill", "prefills"}, {"decode", "decodes"}}) {
            if (vars.get(r[1]) != null && !vars.get(r[1]).isEmpty()) {
                list.addObject().put("role", r[0]).put("url", vars.get(r[1])).put("healthy", true)
                        .put("consecutive_failures", 0).put("last_probe", java.time.Instant.now().toString());
            }
        }
        return root.toString();
    }

    private static void reply(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(status, bytes.length);
        x.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
