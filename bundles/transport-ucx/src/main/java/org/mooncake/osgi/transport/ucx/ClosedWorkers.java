package org.mooncake.osgi.transport.ucx;

import java.util.Base64;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Workers of this process that were destroyed: a request against a segment of a closed transport
 * of this process fails at once instead of connecting to a worker that cannot serve. (The JVM
 * crashes once blamed on reconnecting were UCX 1.13's failing remote-key unpack: see
 * {@link SharedMemoryKeys}.) Per bundle revision: a ucx bundle updated in place forgets the workers
 * of its old revision.
 */
final class ClosedWorkers {
    private static final Set<String> CLOSED = ConcurrentHashMap.newKeySet();

    private ClosedWorkers() {
    }

    static void closed(byte[] workerAddress) {
        if (workerAddress != null) {
            CLOSED.add(Base64.getUrlEncoder().withoutPadding().encodeToString(workerAddress));
        }
    }

    static boolean isClosed(String workerKey) {
        return CLOSED.contains(workerKey);
    }
}
