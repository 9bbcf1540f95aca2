package org.mooncake.osgi.store.rpc.impl;

import org.mooncake.osgi.store.api.ErrorCode;

/**
 * A request the connection's identity may not make. It travels as error code
 * -2005 (ACCESS_DENIED, see docs/protocol.md) with the reason; the connection stays open
 * and nothing changed.
 */
final class AccessDenied extends RuntimeException {
    /** The wire code of a refusal: mooncake-osgi's own range (at or below -2000). */
    static final int CODE = ErrorCode.ACCESS_DENIED.code();
    private static final long serialVersionUID = 1L;

    AccessDenied(String message) {
        super(message, null, false, false);
    }
}
