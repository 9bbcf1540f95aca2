package org.mooncake.osgi.epd.api;

/**
 * A stored object is not the tensor its reader expects: a header that is malformed, of another
 * format version, or describes another dtype, shape, size or layout. The object is never used;
 * a connector treats it as a miss (and recomputes) or reports it, as configured.
 */
public class TensorFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public TensorFormatException(String message) {
        super(message);
    }
}
