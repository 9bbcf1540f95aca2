package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One failed call to a worker, classified so the pipeline can decide on a retry and on the
 * client's status: a timeout is 504, a connection failure, 5xx or unreadable answer 502, and a
 * worker's 4xx is passed on with its own status and message.
 */
final class UpstreamFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    enum Kind {
        /** The attempt ran past its stage timeout. */
        TIMEOUT,
        /** No connection, or it broke before the answer was read. */
        CONNECTION,
        /** The worker answered 5xx. */
        SERVER_ERROR,
        /** The worker answered 4xx: the request is bad; retrying elsewhere will not help. */
        REJECTED,
        /** The worker answered 2xx with something unusable. */
        BAD_ANSWER,
        /** The proxy itself aborted the call (client gone, another item failed). */
        CANCELLED
    }

    final Kind kind;
    final Role stage;
    final Instance instance;
    /** The worker's HTTP status, 0 when there was no answer. */
    final int status;

    UpstreamFailure(Kind kind, Role stage, Instance instance, int status, String message) {
        super(message, null, false, false);
        this.kind = kind;
        this.stage = stage;
        this.instance = instance;
        this.status = status;
    }

    /** Whether another instance may be tried: connection failures and 5xx, and timeouts where the stage allows. */
    boolean retryable(boolean timeouts) {
        return kind == Kind.CONNECTION || kind == Kind.SERVER_ERROR || (timeouts && kind == Kind.TIMEOUT);
    }

    /** What the client is told. */
    ProxyError toProxyError() {
        String where = stage.wire + " instance " + (instance == null ? "?" : instance.id() + " (" + instance.url() + ")");
        return switch (kind) {
            case TIMEOUT -> new ProxyError(504, ProxyError.SERVER_ERROR, stage.wire + " stage timed out: " + getMessage(),
                    null, "upstream_timeout", "timeout");
            case REJECTED -> new ProxyError(status, status == 429 ? "rate_limit_error" : ProxyError.INVALID_REQUEST,
                    getMessage(), null, "upstream_rejected", "upstream_rejected");
            // nobody reads it: the client is gone or the request already failed for another reason
            case CANCELLED -> new ProxyError(499, ProxyError.SERVER_ERROR, "request cancelled", null, "cancelled",
                    "client_disconnected");
            default -> new ProxyError(502, ProxyError.SERVER_ERROR, where + " failed: " + getMessage(), null,
                    "upstream_error", "upstream_error");
        };
    }

    /** The failure behind {@code t} (an exception from an HTTP exchange or a future). */
    static UpstreamFailure classify(Throwable t, Role stage, Instance instance) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof UpstreamFailure u) {
            return u;
        }
        if (c instanceof HttpTimeoutException || c instanceof TimeoutException) {
            return new UpstreamFailure(Kind.TIMEOUT, stage, instance, 0,
                    "no answer from " + where(instance) + " within the " + stage.wire + " timeout");
        }
        if (c instanceof CancellationException || c instanceof InterruptedException) {
            return new UpstreamFailure(Kind.CANCELLED, stage, instance, 0, "cancelled");
        }
        if (c instanceof IOException) {
            return new UpstreamFailure(Kind.CONNECTION, stage, instance, 0,
                    c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage()));
        }
        return new UpstreamFailure(Kind.CONNECTION, stage, instance, 0, String.valueOf(c));
    }

    /** The failure an answer with a non-2xx {@code status} and {@code body} stands for. */
    static UpstreamFailure ofStatus(int status, byte[] body, Role stage, Instance instance) {
        String message = messageOf(body);
        if (status >= 400 && status < 500) {
            return new UpstreamFailure(Kind.REJECTED, stage, instance, status, message);
        }
        return new UpstreamFailure(Kind.SERVER_ERROR, stage, instance, status, "HTTP " + status + ": " + message);
    }

    /** The message of a worker's error body: OpenAI's {@code error.message}, vLLM's older top-level {@code message}, or the text. */
    static String messageOf(byte[] body) {
        if (body == null || body.length == 0) {
            return "(no body)";
        }
        try {
            JsonNode n = Json.read(body);
            if (n.path("error").isObject() && n.path("error").path("message").isTextual()) {
                return n.path("error").path("message").asText();
            }
            if (n.path("error").isTextual()) {
                return n.path("error").asText();
            }
            if (n.path("message").isTextual()) {
                return n.path("message").asText();
            }
        } catch (IOException | RuntimeException notJson) {
            // fall through to the text
        }
        String text = new String(body, 0, Math.min(body.length, 500), java.nio.charset.StandardCharsets.UTF_8).strip();
        return text.isEmpty() ? "(no body)" : text;
    }

    private static String where(Instance instance) {
        return instance == null ? "worker" : instance.id() + " (" + instance.url() + ")";
    }
}
