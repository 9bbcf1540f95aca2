package org.mooncake.osgi.epd.proxy.impl;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the proxy answers with an error, in OpenAI's shape:
 * {@code {"error":{"message":..,"type":..,"param":..,"code":..}}}. {@link #outcome} is its label in
 * {@code mooncake_epd_proxy_requests_total}.
 */
final class ProxyError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final String INVALID_REQUEST = "invalid_request_error";
    static final String SERVER_ERROR = "server_error";

    final int status;
    final String type;
    final String param;
    final String code;
    final String outcome;

    ProxyError(int status, String type, String message, String param, String code, String outcome) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.outcome = outcome;
    }

    static ProxyError badRequest(String message, String param, String code) {
        return new ProxyError(400, INVALID_REQUEST, message, param, code, "bad_request");
    }

    static ProxyError tooLarge(long limit) {
        return new ProxyError(413, INVALID_REQUEST, "request body is larger than max.body.bytes (" + limit + " bytes)",
                null, "request_too_large", "bad_request");
    }

    static ProxyError modelNotFound(String model) {
        return new ProxyError(404, INVALID_REQUEST, "The model `" + model + "` does not exist.", "model",
                "model_not_found", "model_not_found");
    }

    static ProxyError noHealthy(Role role) {
        return new ProxyError(503, SERVER_ERROR, "no healthy " + role.wire + " instance", null, "no_healthy_instance",
                "unavailable");
    }

    /** The error object alone (also the payload of an SSE error event). */
    Map<String, Object> errorObject() {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("message", getMessage());
        e.put("type", type);
        e.put("param", param);
        e.put("code", code);
        return e;
    }

    byte[] body() {
        return Json.bytes(Map.of("error", errorObject()));
    }
}
