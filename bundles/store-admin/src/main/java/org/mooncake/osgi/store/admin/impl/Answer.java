package org.mooncake.osgi.store.admin.impl;

import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.mooncake.osgi.store.api.ErrorCode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** One admin answer, as any HTTP server sends it: status, content type, body. */
record Answer(int status, String contentType, String body) {
    static final String JSON = "application/json";
    /** The WWW-Authenticate header every 401 carries. */
    static final String CHALLENGE = "Bearer realm=\"mooncake\"";
    /**
     * Indented, as operators read these with curl; a health detail that is some object without
     * properties is written as {@code {}} rather than failing the probe.
     */
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    static Answer json(int status, Object body) {
        try {
            return new Answer(status, JSON, MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The admin endpoints' error shape: {@code {"error": NAME, "code": n, "message": "..."}}. */
    static Answer error(int status, ErrorCode code, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code.name());
        body.put("code", code.code());
        body.put("message", message);
        return json(status, body);
    }
}
