package org.mooncake.osgi.epd.worker.impl;

/**
 * An answer other than success, in OpenAI's error shape: {@code {"error":{"message","type",
 * "param","code"}}} with its HTTP status.
 */
final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;
    final String type;
    final String code;
    final String param;

    ApiError(int status, String type, String code, String param, String message) {
        super(message);
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
    }

    static ApiError badRequest(String code, String param, String message) {
        return new ApiError(400, "invalid_request_error", code, param, message);
    }

    static ApiError unknownModel(String model) {
        return new ApiError(404, "invalid_request_error", "model_not_found", "model",
                "The model '" + model + "' does not exist on this worker");
    }

    static ApiError server(int status, String code, String message) {
        return new ApiError(status, "server_error", code, null, message);
    }
}
