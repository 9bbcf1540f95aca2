package org.mooncake.osgi.transport.tcp;

import java.io.IOException;

/**
 * A WRITE that failed without an answer from a peer that may still apply it: its request left
 * this side, then it timed out (or the transport closed under it) before the response came. Its
 * bytes may sit in the peer's socket buffer and land when the peer runs again, unless the peer
 * refuses them by then (the grant expired). Reported as {@code TransferStatus.failedInDoubt}.
 */
final class InDoubtException extends IOException {
    private static final long serialVersionUID = 1L;

    InDoubtException(String message, Throwable cause) {
        super(message, cause);
    }
}
