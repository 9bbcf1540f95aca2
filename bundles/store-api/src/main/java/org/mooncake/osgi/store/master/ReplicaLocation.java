package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * One replica's place: {@code sizeBytes} at {@code offset} within a segment reachable at any of
 * {@code endpoints}, most preferred first.
 */
public record ReplicaLocation(String segmentName, List<SegmentEndpoint> endpoints, long offset, long sizeBytes) {
    public ReplicaLocation {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** The most preferred way to reach the replica. */
    public SegmentEndpoint endpoint() {
        return endpoints.isEmpty() ? null : endpoints.getFirst();
    }
}
