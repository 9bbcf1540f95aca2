package org.mooncake.osgi.store.rpc.impl;

import java.util.List;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ReadLease;

/**
 * Answers in the terms of protocol version 2. Such a client checks an object's bytes against one
 * checksum of them all; an object written in chunks has instead the combination of its chunk
 * checksums, which that client would take for corruption. So it is refused the lease of such an
 * object with INVALID_VERSION, saying why, and served everything else as before.
 */
final class OlderClients {
    private OlderClients() {
    }

    static Object inVersion2(Object result) {
        if (result instanceof ReadLease lease) {
            if (lease.chunks() != null) {
                throw refused();
            }
            return lease;
        }
        if (result instanceof List<?> list && !list.isEmpty() && list.getFirst() instanceof OpResult<?>) {
            return list.stream().map(r -> (OpResult<?>) r).map(r -> r.value() instanceof ReadLease l && l.chunks() != null
                    ? OpResult.failed(r.key(), refused()) : r).toList();
        }
        return result;
    }

    private static StoreException refused() {
        return new StoreException(ErrorCode.INVALID_VERSION,
                "the object was written in checksum chunks (protocol 3); this client speaks protocol 2: upgrade it");
    }
}
