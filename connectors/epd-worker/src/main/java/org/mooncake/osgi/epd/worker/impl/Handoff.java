package org.mooncake.osgi.epd.worker.impl;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a prefill hands a decode in {@code kv_transfer_params.mooncake}: the first token it
 * generated, the prompt's length and each media item's tokens (the decode rebuilds the layout
 * from them without decoding any media), and how the KV blocks were saved. The rest of {@code
 * kv_transfer_params} passes through untouched.
 */
record Handoff(int firstToken, int promptTokens, Map<String, Integer> mediaTokens, int blockTokens) {
    static final String FIELD = "mooncake";

    /** Reads it from a decode request's {@code kv_transfer_params}; a 400 when missing or malformed. */
    static Handoff of(ObjectNode kvTransferParams) {
        JsonNode m = kvTransferParams == null ? null : kvTransferParams.get(FIELD);
        if (m == null || !m.isObject()) {
            throw ApiError.badRequest("invalid_value", "kv_transfer_params",
                    "a decode worker needs kv_transfer_params." + FIELD + " from a prefill");
        }
        JsonNode first = m.get("first_token");
        JsonNode prompt = m.get("prompt_tokens");
        JsonNode block = m.get("kv_block_tokens");
        JsonNode media = m.get("media_tokens");
        if (first == null || !first.canConvertToInt() || prompt == null || !prompt.canConvertToInt() || block == null
                || !block.canConvertToInt() || block.asInt() < 1 || media == null || !media.isObject()) {
            throw ApiError.badRequest("invalid_value", "kv_transfer_params." + FIELD,
                    "first_token, prompt_tokens, kv_block_tokens and media_tokens are required");
        }
        Map<String, Integer> tokens = new LinkedHashMap<>();
        media.fields().forEachRemaining(e -> tokens.put(e.getKey(), e.getValue().asInt()));
        return new Handoff(first.asInt(), prompt.asInt(), Map.copyOf(tokens), block.asInt());
    }
}
