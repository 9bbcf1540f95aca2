package org.mooncake.osgi.transport.ucx;

/** A ucp call that failed, with UCX's status. */
final class UcxException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final byte status;

    UcxException(String message, byte status) {
        super(message);
        this.status = status;
    }
}
