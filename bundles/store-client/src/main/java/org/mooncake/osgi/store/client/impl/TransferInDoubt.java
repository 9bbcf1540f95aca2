package org.mooncake.osgi.store.client.impl;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

/**
 * A transfer failed with some of its bytes possibly still on their way (a WRITE to a peer that
 * did not answer in time): a put that ends this way is revoked telling the master so, which then
 * keeps the space until the put's WRITE grants have expired.
 */
final class TransferInDoubt extends StoreException {
    private static final long serialVersionUID = 1L;

    TransferInDoubt(String message) {
        super(ErrorCode.TRANSFER_FAIL, message);
    }

    /** Whether {@code e}, or one it suppressed or was caused by, is a transfer in doubt. */
    static boolean in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TransferInDoubt) {
                return true;
            }
        }
        return false;
    }
}
