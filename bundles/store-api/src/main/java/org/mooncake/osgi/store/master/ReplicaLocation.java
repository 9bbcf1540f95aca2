package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * One replica's place: {@code sizeBytes} at {@code offset} within a segment reachable at any of
 * {@code endpoints}, most preferred first; {@code grant}: the master's permission to read (in a
 * read lease) or write (in a put ticket) those bytes, which a transport that checks grants needs
 * with each request (since 3.1; null where the segment's owner gave the master no
 * {@link GrantKey}).
 */
public record ReplicaLocation(String segmentName, List<SegmentEndpoint> endpoints, long offset, long sizeBytes,
        DataGrant grant) {
    public ReplicaLocation {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** A replica without a grant: the components of 3.0. */
    public ReplicaLocation(String segmentName, List<SegmentEndpoint> endpoints, long offset, long sizeBytes) {
        this(segmentName, endpoints, offset, sizeBytes, null);
    }

    /** The most preferred way to reach the replica. */
    public SegmentEndpoint endpoint() {
        return endpoints.isEmpty() ? null : endpoints.getFirst();
    }
}
