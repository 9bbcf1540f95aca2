package org.mooncake.osgi.epd.proxy.impl;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The one Jackson mapper of the proxy (thread-safe once built) and small helpers around it. */
final class Json {
    /** Trailing content after the value is an error; a duplicate key keeps its last value (as Python's json does). */
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private Json() {
    }

    /** {@code body} as a tree; IOException when it is no (single) JSON value. */
    static JsonNode read(byte[] body) throws IOException {
        return MAPPER.readTree(body);
    }

    /** {@code value} (a tree, map, list, ...) as UTF-8 JSON. */
    static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code value} as a JSON string. */
    static String text(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
