package org.mooncake.osgi.epd.proxy.impl;

/** What the proxy answers: a JSON body with a status, or a stream to relay. */
sealed interface ChatOutcome permits ChatOutcome.JsonReply, StreamReply {

    /** The request id to return as {@code X-Request-Id}; null for non-chat endpoints. */
    String requestId();

    /** A complete JSON answer ({@code body} null: no content). */
    record JsonReply(int status, byte[] body, String requestId) implements ChatOutcome {
        static JsonReply of(int status, Object json) {
            return new JsonReply(status, Json.bytes(json), null);
        }

        static JsonReply error(ProxyError e, String requestId) {
            return new JsonReply(e.status, e.body(), requestId);
        }
    }
}
