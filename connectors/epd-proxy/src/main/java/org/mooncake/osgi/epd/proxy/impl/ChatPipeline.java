package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.mooncake.osgi.epd.proxy.impl.ChatOutcome.JsonReply;
import org.mooncake.osgi.epd.proxy.impl.ChatRequest.MediaItem;
import org.mooncake.osgi.epd.proxy.impl.UpstreamFailure.Kind;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One chat completion through Encoder, Prefill and Decode.
 *
 * <p><b>Threads.</b> {@link #chat} runs on the caller's (container's) request thread and blocks
 * it until the answer is known: through encode and prefill, and for a streamed request until the
 * decoder's first event. Each media item's encode runs on a virtual thread of its own, all at
 * once; the HTTP exchanges are asynchronous and every wait is bounded by its stage timeout, so the
 * request thread always comes back. Everything sent for the request is tracked by its
 * {@link RequestScope}, which the end of the request, a failed sibling encode or a client that went
 * away cancels.
 *
 * <p><b>Retries.</b> An encode that fails by connection error, timeout or 5xx is tried once more
 * on another healthy encoder; prefill and decode likewise, except for timeouts (a stage that
 * timed out has had its time: 504). A worker's 4xx is passed on, not retried. A streamed decode is
 * retried only before its first event; afterwards see {@link StreamReply}.
 */
final class ChatPipeline {
    private static final System.Logger LOG = System.getLogger(ChatPipeline.class.getName());
    /** How much of a worker's error body is read. */
    private static final int ERROR_BODY_BYTES = 64 * 1024;

    private final InstanceRegistry registry;
    private final WorkerClient client;
    private final ModelCatalog catalog;
    private final ProxyMetrics metrics;
    private final ExecutorService virtualThreads;

    ChatPipeline(InstanceRegistry registry, WorkerClient client, ModelCatalog catalog, ProxyMetrics metrics,
            ExecutorService virtualThreads) {
        this.registry = registry;
        this.client = client;
        this.catalog = catalog;
        this.metrics = metrics;
        this.virtualThreads = virtualThreads;
    }

    /** Serves {@code body} under {@code rid}; never throws: errors come back as OpenAI error replies. */
    ChatOutcome chat(byte[] body, String rid, ProxySettings s, long arrivedNanos) {
        RequestScope scope = new RequestScope();
        boolean handedOver = false;
        try {
            ChatRequest req = ChatRequest.parse(body);
            InstanceRegistry.Snapshot snap = registry.snapshot();
            if (!req.media.isEmpty() && snap.healthy(Role.ENCODE).isEmpty()) {
                throw ProxyError.noHealthy(Role.ENCODE);
            }
            for (Role r : List.of(Role.PREFILL, Role.DECODE)) {
                if (snap.healthy(r).isEmpty()) {
                    throw ProxyError.noHealthy(r);
                }
            }
            catalog.check(req.model);
            LOG.log(Level.DEBUG, "{0}: model {1}, {2} media item(s), stream={3}", rid, req.model, req.media.size(),
                    req.stream);
            if (!req.media.isEmpty()) {
                encode(req, rid, s, scope);
            }
            JsonNode kv = prefill(req, rid, s, scope);
            byte[] decodeBody = Json.bytes(req.decodeRequest(kv));
            if (req.stream) {
                StreamReply reply = openStream(decodeBody, rid, s, scope, arrivedNanos);
                handedOver = true;
                return reply;
            }
            JsonReply reply = decode(decodeBody, rid, s, scope);
            metrics.request("ok");
            return reply;
        } catch (ProxyError e) {
            return fail(e, rid);
        } catch (UpstreamFailure f) {
            return fail(f.toProxyError(), rid);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, rid + ": unexpected failure", e);
            return fail(new ProxyError(500, ProxyError.SERVER_ERROR, "internal error: " + e, null, "internal_error",
                    "upstream_error"), rid);
        } finally {
            if (!handedOver) {
                scope.close();
            }
        }
    }

    private JsonReply fail(ProxyError e, String rid) {
        metrics.request(e.outcome);
        LOG.log(e.status >= 500 ? Level.WARNING : Level.DEBUG, "{0}: {1} {2}", rid, String.valueOf(e.status),
                e.getMessage());
        return JsonReply.error(e, rid);
    }

    /** Encodes every media item at once; returns when all are saved, throws at the first that failed for good. */
    private void encode(ChatRequest req, String rid, ProxySettings s, RequestScope scope) {
        long t0 = System.nanoTime();
        RequestScope encodes = scope.child();
        CompletableFuture<Void> firstFailure = new CompletableFuture<>();
        List<CompletableFuture<Void>> items = new ArrayList<>(req.media.size());
        for (MediaItem m : req.media) {
            Instance first = registry.pick(Role.ENCODE, Set.of()); // in item order: round-robin stays predictable
            byte[] child = Json.bytes(req.encodeRequest(m));
            CompletableFuture<Void> item = CompletableFuture.runAsync(() -> {
                HttpResponse<byte[]> r = exchange(Role.ENCODE, first, child, () -> RequestIds.child(rid, m.index()), true,
                        s.encodeTimeout(), encodes, rid);
                LOG.log(Level.DEBUG, "{0}: encoded item {1} ({2}) on {3}", rid, m.index(), m.uuid(), r.uri());
            }, virtualThreads);
            item.whenComplete((v, e) -> {
                if (e != null) {
                    firstFailure.completeExceptionally(e);
                }
            });
            items.add(item);
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(items.toArray(CompletableFuture[]::new));
        try {
            CompletableFuture.anyOf(all, firstFailure).get();
        } catch (ExecutionException e) {
            encodes.cancel(); // fail fast: the other items' exchanges are aborted
            throw rethrow(e.getCause(), Role.ENCODE);
        } catch (InterruptedException e) {
            encodes.cancel();
            Thread.currentThread().interrupt();
            throw new UpstreamFailure(Kind.CANCELLED, Role.ENCODE, null, 0, "interrupted");
        }
        metrics.stage(Role.ENCODE, System.nanoTime() - t0);
    }

    /** Prefills; returns the {@code kv_transfer_params} its answer carries. */
    private JsonNode prefill(ChatRequest req, String rid, ProxySettings s, RequestScope scope) {
        long t0 = System.nanoTime();
        HttpResponse<byte[]> r = exchange(Role.PREFILL, registry.pick(Role.PREFILL, Set.of()),
                Json.bytes(req.prefillRequest()), () -> rid, false, s.prefillTimeout(), scope, rid);
        JsonNode answer = parseAnswer(r, Role.PREFILL);
        JsonNode kv = answer.get("kv_transfer_params");
        if (kv == null || !kv.isObject()) {
            throw new UpstreamFailure(Kind.BAD_ANSWER, Role.PREFILL, null, r.statusCode(),
                    "the prefill answer from " + r.uri() + " carries no kv_transfer_params object");
        }
        metrics.stage(Role.PREFILL, System.nanoTime() - t0);
        LOG.log(Level.DEBUG, "{0}: prefilled on {1}", rid, r.uri());
        return kv;
    }

    /** Decodes without streaming: the worker's answer, with the request id as its {@code id}. */
    private JsonReply decode(byte[] body, String rid, ProxySettings s, RequestScope scope) {
        long t0 = System.nanoTime();
        HttpResponse<byte[]> r = exchange(Role.DECODE, registry.pick(Role.DECODE, Set.of()), body, () -> rid, false,
                s.decodeTimeout(), scope, rid);
        JsonNode answer = parseAnswer(r, Role.DECODE);
        byte[] out = r.body();
        if (answer.isObject() && !rid.equals(answer.path("id").asText(null))) {
            ((ObjectNode) answer).put("id", rid);
            out = Json.bytes(answer);
        }
        metrics.stage(Role.DECODE, System.nanoTime() - t0);
        LOG.log(Level.DEBUG, "{0}: decoded on {1}", rid, r.uri());
        return new JsonReply(200, out, rid);
    }

    /** Opens the streamed decode and waits for its first event; retried once on another decoder before that. */
    private StreamReply openStream(byte[] body, String rid, ProxySettings s, RequestScope scope, long arrivedNanos) {
        Set<String> tried = new HashSet<>();
        Instance instance = registry.pick(Role.DECODE, tried);
        while (true) {
            if (instance == null) {
                throw ProxyError.noHealthy(Role.DECODE);
            }
            try {
                return attemptStream(instance, body, rid, s, scope, arrivedNanos);
            } catch (UpstreamFailure f) {
                tried.add(instance.id());
                instance = retryOn(f, Role.DECODE, false, tried, rid);
            }
        }
    }

    private StreamReply attemptStream(Instance instance, byte[] body, String rid, ProxySettings s, RequestScope scope,
            long arrivedNanos) {
        long t0 = System.nanoTime();
        Duration timeout = s.decodeTimeout();
        HttpResponse<InputStream> r = await(WorkerClient.within(scope.track(client.post(instance.url(),
                WorkerClient.CHAT, body, rid, timeout, WorkerClient.streaming())), timeout), Role.DECODE, instance);
        if (r.statusCode() / 100 != 2) {
            byte[] error = readError(r.body(), remaining(timeout, t0));
            throw UpstreamFailure.ofStatus(r.statusCode(), error, Role.DECODE, instance);
        }
        SseEvents events = new SseEvents(r.body(), (int) Math.min(Integer.MAX_VALUE, s.maxBodyBytes()), rid);
        scope.onCancel(events::close);
        SseEvents.Item first;
        try {
            first = events.next(remaining(timeout, t0));
        } catch (TimeoutException e) {
            events.close();
            throw new UpstreamFailure(Kind.TIMEOUT, Role.DECODE, instance, 0,
                    "no streamed event from " + instance.id() + " (" + instance.url() + ") within the decode timeout");
        } catch (InterruptedException e) {
            events.close();
            Thread.currentThread().interrupt();
            throw new UpstreamFailure(Kind.CANCELLED, Role.DECODE, instance, 0, "interrupted");
        }
        if (!(first instanceof SseEvents.Data data)) {
            events.close();
            String why = first instanceof SseEvents.Failed f ? f.error().toString() : "the stream ended";
            throw new UpstreamFailure(Kind.CONNECTION, Role.DECODE, instance, 0, why + " before its first event");
        }
        LOG.log(Level.DEBUG, "{0}: streaming from {1}", rid, instance.url());
        return new StreamReply(rid, instance, events, data, s.streamIdleTimeout(), scope, metrics, arrivedNanos, t0);
    }

    /**
     * One stage's exchange: on {@code first}, then once more on another healthy instance when the
     * failure allows; returns a 2xx answer or throws.
     */
    private HttpResponse<byte[]> exchange(Role stage, Instance first, byte[] body, Supplier<String> requestId,
            boolean retryTimeouts, Duration timeout, RequestScope scope, String rid) {
        Set<String> tried = new HashSet<>();
        Instance instance = first;
        while (true) {
            if (instance == null) {
                throw ProxyError.noHealthy(stage);
            }
            try {
                HttpResponse<byte[]> r = await(WorkerClient.within(scope.track(client.post(instance.url(),
                        WorkerClient.CHAT, body, requestId.get(), timeout, WorkerClient.buffered())), timeout), stage,
                        instance);
                if (r.statusCode() / 100 != 2) {
                    throw UpstreamFailure.ofStatus(r.statusCode(), r.body(), stage, instance);
                }
                return r;
            } catch (UpstreamFailure f) {
                tried.add(instance.id());
                instance = retryOn(f, stage, retryTimeouts, tried, rid);
            }
        }
    }

    /** The instance to try after {@code f}, or {@code f} rethrown when there is no second chance. */
    private Instance retryOn(UpstreamFailure f, Role stage, boolean retryTimeouts, Set<String> tried, String rid) {
        if (!f.retryable(retryTimeouts) || tried.size() > 1) {
            throw f;
        }
        Instance next = registry.pick(stage, tried);
        if (next == null) {
            LOG.log(Level.WARNING, "{0}: {1} failed, no other healthy {2} instance to retry on: {3}", rid,
                    stage.wire, stage.wire, f.getMessage());
            throw f;
        }
        metrics.retry(stage);
        LOG.log(Level.WARNING, "{0}: {1} on {2} failed ({3}); retrying on {4}", rid, stage.wire,
                f.instance == null ? "?" : f.instance.id(), f.getMessage(), next.id());
        return next;
    }

    private static <T> T await(CompletableFuture<T> f, Role stage, Instance instance) {
        try {
            return f.get();
        } catch (ExecutionException | CancellationException e) {
            throw UpstreamFailure.classify(e, stage, instance);
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new UpstreamFailure(Kind.CANCELLED, stage, instance, 0, "interrupted");
        }
    }

    private static JsonNode parseAnswer(HttpResponse<byte[]> r, Role stage) {
        try {
            JsonNode n = Json.read(r.body());
            if (n != null && n.isObject()) {
                return n;
            }
        } catch (IOException e) {
            // below
        }
        throw new UpstreamFailure(Kind.BAD_ANSWER, stage, null, r.statusCode(),
                "the " + stage.wire + " answer from " + r.uri() + " is not a JSON object");
    }

    /** Up to 64 KiB of an error answer, waiting at most {@code timeout}; the stream is closed after. */
    private byte[] readError(InputStream in, Duration timeout) {
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try {
                return in.readNBytes(ERROR_BODY_BYTES);
            } catch (IOException e) {
                return new byte[0];
            }
        }, virtualThreads);
        try {
            return read.get(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return new byte[0];
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new byte[0];
        } finally {
            try {
                in.close();
            } catch (IOException ignored) {
                // done with it
            }
        }
    }

    private static Duration remaining(Duration timeout, long startNanos) {
        long left = timeout.toNanos() - (System.nanoTime() - startNanos);
        return Duration.ofNanos(Math.max(1_000_000, left));
    }

    private static RuntimeException rethrow(Throwable t, Role stage) {
        Throwable c = t;
        while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof ProxyError p) {
            return p;
        }
        return UpstreamFailure.classify(c, stage, null);
    }
}
