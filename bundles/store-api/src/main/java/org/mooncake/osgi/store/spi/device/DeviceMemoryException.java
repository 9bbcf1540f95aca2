package org.mooncake.osgi.store.spi.device;

/**
 * A device driver refused an operation: the message names the call, its arguments, and the
 * driver's error by name and description (for CUDA, {@code CUDA_ERROR_OUT_OF_MEMORY (2): out of
 * memory}).
 */
public class DeviceMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final String errorName;

    /**
     * @param operation the call and its arguments, for the message
     * @param code the driver's numeric error
     * @param errorName the driver's name for it ({@code CUDA_ERROR_INVALID_VALUE})
     * @param errorString the driver's description of it
     */
    public DeviceMemoryException(String operation, int code, String errorName, String errorString) {
        super(operation + " failed: " + errorName + " (" + code + "): " + errorString);
        this.code = code;
        this.errorName = errorName;
    }

    /** The driver's numeric error code. */
    public int code() {
        return code;
    }

    /** The driver's name for the error, e.g. {@code CUDA_ERROR_INVALID_VALUE}. */
    public String errorName() {
        return errorName;
    }
}
