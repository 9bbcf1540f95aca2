package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * A segment a client contributes: its unique name, the owning client, its size and every way to
 * reach it, most preferred first (in-process, then shared memory, then TCP); a reader takes the
 * first one it can reach.
 */
public record SegmentDescriptor(String name, String clientId, long sizeBytes, List<SegmentEndpoint> endpoints) {
    public SegmentDescriptor {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** A segment reachable one way. */
    public SegmentDescriptor(String name, String clientId, long sizeBytes, SegmentEndpoint endpoint) {
        this(name, clientId, sizeBytes, endpoint == null ? List.of() : List.of(endpoint));
    }

    /** The most preferred way to reach the segment. */
    public SegmentEndpoint endpoint() {
        return endpoints.isEmpty() ? null : endpoints.getFirst();
    }
}
