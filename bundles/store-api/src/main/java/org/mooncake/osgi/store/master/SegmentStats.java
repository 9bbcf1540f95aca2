package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * A mounted segment and how full it is. {@code protocol}: the protocols it is reached over, comma
 * separated, cheapest first; {@code endpoints}: the same as {@code protocol://address}, so that
 * an operator sees where a restarted transport now serves it (empty from a master older than
 * store.master 1.3).
 */
public record SegmentStats(String name, String clientId, String protocol, long capacityBytes, long usedBytes,
        List<String> endpoints) {
    public SegmentStats {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** Without endpoints: what store.master 1.2 had. */
    public SegmentStats(String name, String clientId, String protocol, long capacityBytes, long usedBytes) {
        this(name, clientId, protocol, capacityBytes, usedBytes, List.of());
    }
}
