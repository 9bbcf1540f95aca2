package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A streamed decode whose first event has arrived: what is left is relaying it.
 * {@link #relayTo} writes each event to the client and flushes it as soon as the decoder sent it.
 *
 * <p><b>Semantics once streaming started</b> (the client has a 200 and events): a decoder that
 * fails, stalls longer than {@code stream.idle.timeout.ms} or ends without {@code [DONE]} ends
 * the client's stream with one error event, {@code data: {"error":{...}}}, then
 * {@code data: [DONE]}; there is no retry (the client already has tokens). A client whose
 * connection is gone makes the next write fail: the decoder's exchange is aborted at once (its
 * connection closed) and the relay ends.
 *
 * <p><b>Threads.</b> {@link #relayTo} runs on the container thread that writes the response;
 * the decoder's events come from {@link SseEvents}' reader thread. Called at most once.
 */
final class StreamReply implements ChatOutcome {
    private static final System.Logger LOG = System.getLogger(StreamReply.class.getName());
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

    private final String requestId;
    private final Instance decoder;
    private final SseEvents events;
    private final SseEvents.Data first;
    private final Duration idleTimeout;
    private final RequestScope scope;
    private final ProxyMetrics metrics;
    private final long arrivedNanos;
    private final long decodeStartNanos;
    private final AtomicBoolean used = new AtomicBoolean();

    StreamReply(String requestId, Instance decoder, SseEvents events, SseEvents.Data first, Duration idleTimeout,
            RequestScope scope, ProxyMetrics metrics, long arrivedNanos, long decodeStartNanos) {
        this.requestId = requestId;
        this.decoder = decoder;
        this.events = events;
        this.first = first;
        this.idleTimeout = idleTimeout;
        this.scope = scope;
        this.metrics = metrics;
        this.arrivedNanos = arrivedNanos;
        this.decodeStartNanos = decodeStartNanos;
        // a front that never relays (it failed before writing) must not hold the decoder forever
        CompletableFuture.delayedExecutor(idleTimeout.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (!used.get()) {
                LOG.log(Level.WARNING, "{0}: the stream was never relayed; releasing the decode", requestId);
                abandon();
            }
        });
    }

    @Override
    public String requestId() {
        return requestId;
    }

    /** Relays the stream to {@code out}, flushing every event; returns when it ended, failed or the client left. */
    void relayTo(OutputStream out) {
        if (!used.compareAndSet(false, true)) {
            throw new IllegalStateException("a stream is relayed once");
        }
        String outcome = "stream_error";
        try {
            SseEvents.Item item = first;
            boolean firstChunk = true;
            while (true) {
                if (item instanceof SseEvents.Data data) {
                    if (data.done()) {
                        out.write(DONE);
                        out.flush();
                        outcome = "ok";
                        metrics.stage(Role.DECODE, System.nanoTime() - decodeStartNanos);
                        return;
                    }
                    write(out, withId(data.data()));
                    if (firstChunk) {
                        metrics.firstChunk(System.nanoTime() - arrivedNanos);
                        firstChunk = false;
                    }
                } else {
                    String why = item instanceof SseEvents.Failed f
                            ? "the decode stream from " + decoder.id() + " broke: " + f.error()
                            : "the decode stream from " + decoder.id() + " ended without [DONE]";
                    endWithError(out, why, "upstream_error");
                    return;
                }
                try {
                    item = events.next(idleTimeout);
                } catch (TimeoutException e) {
                    endWithError(out, "the decode stream from " + decoder.id() + " sent nothing for "
                            + idleTimeout.toMillis() + " ms", "upstream_timeout");
                    return;
                }
            }
        } catch (IOException clientGone) {
            outcome = "client_disconnected";
            LOG.log(Level.INFO, "{0}: client went away mid-stream ({1}); aborting the decode on {2}", requestId,
                    clientGone.toString(), decoder.id());
        } catch (InterruptedException e) {
            outcome = "client_disconnected";
            Thread.currentThread().interrupt();
        } finally {
            metrics.request(outcome); // counted before the decoder sees its connection go
            events.close();
            scope.close();
        }
    }

    /** The front could not relay at all: release the decode. */
    void abandon() {
        if (used.compareAndSet(false, true)) {
            events.close();
            scope.close();
            metrics.request("client_disconnected");
        }
    }

    private void endWithError(OutputStream out, String message, String code) throws IOException {
        LOG.log(Level.WARNING, "{0}: {1}; ending the client's stream with an error event", requestId, message);
        ProxyError e = new ProxyError(502, ProxyError.SERVER_ERROR, message, null, code, "stream_error");
        write(out, Json.text(Map.of("error", e.errorObject())));
        out.write(DONE);
        out.flush();
    }

    private static void write(OutputStream out, String data) throws IOException {
        StringBuilder event = new StringBuilder(data.length() + 16);
        for (String line : data.split("\n", -1)) {
            event.append("data: ").append(line).append('\n');
        }
        event.append('\n');
        out.write(event.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The chunk with the request id as its {@code id}, when it has another one. */
    private String withId(String data) {
        if (data.contains("\"id\":\"" + requestId + "\"")) {
            return data;
        }
        try {
            JsonNode n = Json.MAPPER.readTree(data);
            if (n != null && n.isObject() && n.has("id") && !requestId.equals(n.path("id").asText(null))) {
                ((ObjectNode) n).put("id", requestId);
                return Json.text(n);
            }
        } catch (IOException notJson) {
            // relayed as it is
        }
        return data;
    }
}
