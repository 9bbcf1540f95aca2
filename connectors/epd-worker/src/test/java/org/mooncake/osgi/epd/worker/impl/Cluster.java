package org.mooncake.osgi.epd.worker.impl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.api.KvCacheConnector;
import org.mooncake.osgi.epd.hidden.impl.HiddenStateConnector;
import org.mooncake.osgi.epd.kv.impl.KvConnector;
import org.mooncake.osgi.epd.testing.InProcessStore;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Encoder, prefill, decode and aggregated workers of the tiny model over one real master in this
 * process, wired as the EPD proxy wires them (the same request bodies), without HTTP.
 */
final class Cluster {
    static final String MODELS = "vl@r1=tiny:1,vl@r2=tiny:2";

    /** One worker and what it counted. */
    record Node(Worker worker, Engine engine, WorkerMetrics metrics, HiddenStateConnector ec, KvConnector kv) {
    }

    final InProcessStore store = new InProcessStore(64 << 20);
    final Node encoder;
    final Node prefill;
    final Node decode;
    final Node aggregated;
    private final List<Node> nodes = new ArrayList<>();

    Cluster(String hiddenLoadFailure, String kvLoadFailure) {
        encoder = node(WorkerRole.ENCODER, "producer", null, hiddenLoadFailure, kvLoadFailure);
        prefill = node(WorkerRole.PREFILL, "consumer", "producer", hiddenLoadFailure, kvLoadFailure);
        decode = node(WorkerRole.DECODE, null, "consumer", hiddenLoadFailure, kvLoadFailure);
        aggregated = node(WorkerRole.AGGREGATED, null, null, hiddenLoadFailure, kvLoadFailure);
    }

    Cluster() {
        this("recompute", "recompute");
    }

    private Node node(WorkerRole role, String ecRole, String kvRole, String hiddenLoadFailure, String kvLoadFailure) {
        EmbeddedStoreClient client = store.client(role.label(), "default");
        HiddenStateConnector ec = ecRole == null ? null : new HiddenStateConnector(Configs.of(HiddenStateConnector.Config.class,
                Map.of("role", ecRole, "load_failure", hiddenLoadFailure, "lookup_ttl_ms", 0L)), client);
        KvConnector kv = kvRole == null ? null : new KvConnector(Configs.of(KvConnector.Config.class,
                Map.of("role", kvRole, "block_tokens", 16, "load_failure", kvLoadFailure)), client);
        WorkerMetrics metrics = new WorkerMetrics();
        MediaFetcher fetcher = new MediaFetcher(1 << 24, Duration.ofSeconds(5));
        Engine engine = new Engine(role, new Connectors() {
            @Override
            public EncoderCacheConnector hiddenStates() {
                return ec;
            }

            @Override
            public KvCacheConnector kv() {
                return kv;
            }
        }, metrics, fetcher);
        Node n = new Node(new Worker(role, ServedModel.parse(new String[] {MODELS}, ""), engine, fetcher, metrics, 30_000),
                engine, metrics, ec, kv);
        nodes.add(n);
        return n;
    }

    /** A chat request: text then media parts ({@code image_url} or {@code video_url}, URL). */
    static ObjectNode request(String model, String text, int maxTokens, String... media) {
        ObjectNode body = Replies.JSON.createObjectNode().put("model", model).put("max_tokens", maxTokens);
        ArrayNode content = body.putArray("messages").addObject().put("role", "user").putArray("content");
        content.addObject().put("type", "text").put("text", text);
        for (int i = 0; i < media.length; i += 2) {
            content.addObject().put("type", media[i]).putObject(media[i]).put("url", media[i + 1]);
        }
        return body;
    }

    static JsonNode call(Node n, JsonNode body, String id) {
        Worker.Reply r = n.worker().chat(body.toString().getBytes(StandardCharsets.UTF_8), id);
        if (r instanceof Worker.Stream s) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                s.writeTo(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Replies.JSON.createObjectNode().put("status", 200).put("sse", out.toString(StandardCharsets.UTF_8));
        }
        Worker.Json j = (Worker.Json) r;
        return ((ObjectNode) j.body().deepCopy()).put("status", j.status());
    }

    /** The flow the proxy runs: one encode per media item, a prefill of one token, the decode. */
    JsonNode epd(ObjectNode original, String id) {
        JsonNode parts = original.get("messages").get(0).get("content");
        for (JsonNode p : parts) {
            if (!p.get("type").asText().equals("text")) {
                ObjectNode one = original.deepCopy();
                ArrayNode only = ((ObjectNode) one.get("messages").get(0)).putArray("content");
                only.add(p.deepCopy());
                one.put("max_tokens", 1);
                JsonNode e = call(encoder, one, id + ":enc");
                if (e.get("status").asInt() != 200) {
                    return e;
                }
            }
        }
        ObjectNode pre = original.deepCopy().put("max_tokens", 1).put("stream", false);
        pre.putObject("kv_transfer_params").put("do_remote_decode", true).put("do_remote_prefill", false);
        JsonNode p = call(prefill, pre, id);
        if (p.get("status").asInt() != 200) {
            return p;
        }
        ObjectNode dec = original.deepCopy();
        dec.set("kv_transfer_params", p.get("kv_transfer_params"));
        return call(decode, dec, id);
    }

    static String answer(JsonNode reply) {
        if (reply.has("sse")) {
            StringBuilder text = new StringBuilder();
            for (String line : reply.get("sse").asText().split("\n")) {
                if (line.startsWith("data: {")) {
                    try {
                        JsonNode chunk = Replies.JSON.readTree(line.substring(6));
                        text.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            return text.toString();
        }
        return reply.path("choices").path(0).path("message").path("content").asText();
    }

    public void close() throws InterruptedException {
        for (Node n : nodes) {
            n.engine().close();
        }
        store.close();
    }
}
