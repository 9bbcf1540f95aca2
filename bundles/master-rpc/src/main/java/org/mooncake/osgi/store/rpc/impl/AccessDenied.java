package org.mooncake.osgi.store.rpc.impl;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

/**
 * A request the connection's identity may not make: ACCESS_DENIED with the reason, answered like
 * any other store error; the connection stays open and nothing changed.
 */
final class AccessDenied extends StoreException {
    private static final long serialVersionUID = 1L;

    AccessDenied(String message) {
        super(ErrorCode.ACCESS_DENIED, message);
    }
}
