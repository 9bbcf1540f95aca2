package org.mooncake.osgi.store.master;

/** A mounted segment and how full it is. */
public record SegmentStats(String name, String clientId, String protocol, long capacityBytes, long usedBytes) {
}
