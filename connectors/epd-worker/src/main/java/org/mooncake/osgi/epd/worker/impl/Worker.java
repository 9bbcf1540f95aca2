package org.mooncake.osgi.epd.worker.impl;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.mooncake.osgi.epd.model.Media;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a worker does with one chat request, on the HTTP thread that received it: parse, fetch and
 * decode its media, hand the job to the {@link Engine}, then answer from the job's future or token
 * stream. The answer of each role:
 * <ul>
 * <li>encoder: an empty completion with {@code ec_transfer_params.items} (id, key, bytes, whether
 * it was stored already or saved now);</li>
 * <li>prefill: the first token, and {@code kv_transfer_params} for the decode (the request's own,
 * with {@code do_remote_prefill} and the hand-off under {@code mooncake});</li>
 * <li>decode and aggregated: the answer, streamed as SSE chunks when asked.</li>
 * </ul>
 */
final class Worker {
    private static final System.Logger LOG = System.getLogger(Worker.class.getName());
    private final WorkerRole role;
    private final Map<String, ServedModel> models;
    private final Engine engine;
    private final MediaFetcher fetcher;
    private final WorkerMetrics metrics;
    private final long timeoutMs;

    Worker(WorkerRole role, Map<String, ServedModel> models, Engine engine, MediaFetcher fetcher, WorkerMetrics metrics,
            long timeoutMs) {
        this.role = role;
        this.models = models;
        this.engine = engine;
        this.fetcher = fetcher;
        this.metrics = metrics;
        this.timeoutMs = timeoutMs;
    }

    WorkerRole role() {
        return role;
    }

    Iterable<ServedModel> models() {
        return models.values();
    }

    /** A reply: a JSON body with its status, or a stream to write. */
    sealed interface Reply {
    }

    record Json(int status, JsonNode body) implements Reply {
    }

    /** A streamed answer: writes SSE events until the end; a failed write cancels the generation. */
    record Stream(String id, String model, TokenStream tokens, long timeoutMs) implements Reply {
        void writeTo(OutputStream out) throws IOException {
            try {
                send(out, Replies.chunk(id, model, "assistant", "", null));
                while (true) {
                    TokenStream.Event e = tokens.next(timeoutMs);
                    switch (e) {
                        case null -> {
                            send(out, Replies.error(ApiError.server(504, "timeout", "no token for " + timeoutMs + " ms")));
                            done(out);
                            tokens.cancel();
                            return;
                        }
                        case TokenStream.Token t -> {
                            String text = TokenText.of(t.id());
                            if (!text.isEmpty()) {
                                send(out, Replies.chunk(id, model, null, text, null));
                            }
                        }
                        case TokenStream.End end -> {
                            send(out, Replies.chunk(id, model, null, null, end.finishReason()));
                            done(out);
                            return;
                        }
                        case TokenStream.Failed f -> {
                            send(out, Replies.error(f.error()));
                            done(out);
                            return;
                        }
                    }
                }
            } catch (IOException e) {
                tokens.cancel(); // the client is gone: the engine drops the generation at its next step
                throw e;
            } catch (InterruptedException e) {
                tokens.cancel();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        private static void send(OutputStream out, JsonNode event) throws IOException {
            out.write(("data: " + Replies.JSON.writeValueAsString(event) + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        private static void done(OutputStream out) throws IOException {
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }

    Reply chat(byte[] body, String requestId) {
        String id = requestId == null || requestId.isBlank() ? "chatcmpl-" + UUID.randomUUID().toString().replace("-", "")
                : requestId;
        try {
            JsonNode json;
            try {
                json = Replies.JSON.readTree(body);
            } catch (IOException e) {
                throw ApiError.badRequest("invalid_json", null, "the body is not JSON: " + e.getMessage());
            }
            ServedModel model = models.get(json.path("model").asText(""));
            if (model == null && json.hasNonNull("model")) {
                throw ApiError.unknownModel(json.get("model").asText());
            }
            ChatRequest request = ChatRequest.parse(json, model == null ? 1 : model.config().maxContext());
            Reply reply = run(id, model, request);
            metrics.request("ok");
            return reply;
        } catch (ApiError e) {
            metrics.request(e.status < 500 ? "rejected" : "failed");
            LOG.log(e.status < 500 ? Level.INFO : Level.WARNING, "request {0}: {1} {2}", id, e.status, e.getMessage());
            return new Json(e.status, Replies.error(e));
        }
    }

    private Reply run(String id, ServedModel model, ChatRequest request) {
        LOG.log(Level.INFO, "request {0}: {1} for {2}, {3} media item(s){4}", id, role.label(), model.id(),
                request.media().size(), request.stream() ? ", streamed" : "");
        return switch (role) {
            case ENCODER -> {
                if (request.media().isEmpty()) {
                    throw ApiError.badRequest("invalid_value", "messages", "an encoder needs a media item to encode");
                }
                Job.Encode job = new Job.Encode(id, model, request, decode(model, request));
                engine.submit(job);
                yield encoded(id, model, await(job.result));
            }
            case PREFILL -> {
                Job.Prefill job = new Job.Prefill(id, model, request, decode(model, request));
                engine.submit(job);
                yield prefilled(id, model, request, await(job.result));
            }
            case DECODE -> generate(id, model, request, Handoff.of(request.kvTransferParams()), Map.of());
            case AGGREGATED -> generate(id, model, request, null, decode(model, request));
        };
    }

    private Map<String, Media> decode(ServedModel model, ChatRequest request) {
        Map<String, Media> media = new LinkedHashMap<>();
        for (ChatRequest.Media m : request.media()) {
            media.computeIfAbsent(m.id(), k -> fetcher.fetch(m, model.config()));
        }
        return media;
    }

    private <T> T await(Future<T> f) {
        try {
            return f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof ApiError a ? a : ApiError.server(500, "worker_error", e.getCause().toString());
        } catch (TimeoutException e) {
            f.cancel(false);
            throw ApiError.server(504, "timeout", "the worker took longer than " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiError.server(503, "interrupted", "interrupted");
        }
    }

    private Reply generate(String id, ServedModel model, ChatRequest request, Handoff handoff, Map<String, Media> media) {
        TokenStream tokens = new TokenStream();
        engine.submit(new Job.Generate(id, model, request, media, handoff, tokens));
        if (request.stream()) {
            return new Stream(id, model.id(), tokens, timeoutMs);
        }
        try {
            TokenStream.Collected c = tokens.collect(timeoutMs);
            return new Json(200, Replies.completion(id, model.id(), TokenText.of(c.tokens()), c.end().finishReason(),
                    c.end().promptTokens(), c.tokens().length));
        } catch (InterruptedException e) {
            tokens.cancel();
            Thread.currentThread().interrupt();
            throw ApiError.server(503, "interrupted", "interrupted");
        }
    }

    private static Reply encoded(String id, ServedModel model, Job.EncodeResult r) {
        ObjectNode c = Replies.completion(id, model.id(), "", "stop", 0, 0);
        ArrayNode items = c.putObject("ec_transfer_params").putArray("items");
        for (Job.EncodeResult.Item i : r.items()) {
            items.addObject().put("id", i.id()).put("key", i.key()).put("bytes", i.bytes())
                    .put("already_stored", i.alreadyStored()).put("saved", i.saved());
        }
        return new Json(200, c);
    }

    private static Reply prefilled(String id, ServedModel model, ChatRequest request, Job.PrefillResult r) {
        ObjectNode c = Replies.completion(id, model.id(), TokenText.of(new int[] {r.firstToken()}),
                r.firstToken() == org.mooncake.osgi.epd.model.Tokens.END ? "stop" : "length", r.promptTokens(), 1);
        ObjectNode params = request.kvTransferParams() == null ? Replies.JSON.createObjectNode()
                : request.kvTransferParams().deepCopy();
        params.put("do_remote_prefill", true).put("do_remote_decode", false);
        ObjectNode m = params.putObject(Handoff.FIELD);
        m.put("first_token", r.firstToken()).put("prompt_tokens", r.promptTokens())
                .put("kv_block_tokens", r.blockTokens()).put("kv_blocks", r.kvBlocks()).put("kv_complete", r.kvComplete())
                .put("request_id", id);
        ObjectNode media = m.putObject("media_tokens");
        r.mediaTokens().forEach(media::put);
        r.connectorParams().forEach((k, v) -> m.set(k, Replies.JSON.valueToTree(v)));
        c.set("kv_transfer_params", params);
        return new Json(200, c);
    }
}
