package org.mooncake.osgi.store.rpc.impl;

import java.util.HashMap;
import java.util.Map;

/**
 * Open connections per authenticated principal (certificate CN or token name), not per address:
 * every local process shares 127.0.0.1, while one identity opening connection after connection
 * must not exhaust the master's threads and sockets. A connection is counted from its admission
 * at {@code HELLO} until it closes.
 */
final class ConnectionQuota {
    private final int perIdentity;
    private final Map<String, Integer> open = new HashMap<>();

    ConnectionQuota(int perIdentity) {
        if (perIdentity < 1) {
            throw new IllegalArgumentException("max.connections.per.identity must be at least 1, was " + perIdentity);
        }
        this.perIdentity = perIdentity;
    }

    int perIdentity() {
        return perIdentity;
    }

    /** Counts one more connection of {@code principal}; false (and nothing counted) when it holds its maximum. */
    synchronized boolean acquire(String principal) {
        int held = open.getOrDefault(principal, 0);
        if (held >= perIdentity) {
            return false;
        }
        open.put(principal, held + 1);
        return true;
    }

    /** One connection of {@code principal} closed. */
    synchronized void release(String principal) {
        open.computeIfPresent(principal, (p, held) -> held <= 1 ? null : held - 1);
    }

    /** Connections {@code principal} holds now. */
    synchronized int held(String principal) {
        return open.getOrDefault(principal, 0);
    }
}
