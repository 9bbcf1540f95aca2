package org.mooncake.osgi.store.api;

/** A store operation failed; {@link #errorCode()} says why, the message says what. */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode errorCode;
    private final String detail;

    public StoreException(ErrorCode errorCode, String message) {
        super(errorCode + " (" + errorCode.code() + "): " + message);
        this.errorCode = errorCode;
        this.detail = message;
    }

    public StoreException(ErrorCode errorCode, String message, Throwable cause) {
        this(errorCode, message);
        initCause(cause);
    }

    public ErrorCode errorCode() {
        return errorCode;
    }

    /** The message without the code, e.g. to carry the error to another process. */
    public String detail() {
        return detail;
    }

    /** Throws {@code INVALID_PARAMS} with the message unless the condition holds. */
    public static void require(boolean condition, String message) {
        if (!condition) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, message);
        }
    }
}
