package org.mooncake.osgi.store.master;

/** One replica's place: {@code sizeBytes} at {@code offset} within a segment reachable at {@code endpoint}. */
public record ReplicaLocation(String segmentName, SegmentEndpoint endpoint, long offset, long sizeBytes) {
}
