package org.mooncake.osgi.store.master;

import java.util.List;

import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * A mounted segment and how full it is. {@code protocol}: the protocols it is reached over, comma
 * separated, cheapest first; {@code endpoints}: the same as {@code protocol://address}, so that
 * an operator sees where a restarted transport now serves it (empty from a master older than
 * store.master 1.3); {@code memoryKind}: where its bytes live (HOST from a master older than 3.0).
 */
public record SegmentStats(String name, String clientId, String protocol, long capacityBytes, long usedBytes,
        List<String> endpoints, MemoryKind memoryKind) {
    public SegmentStats {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        memoryKind = memoryKind == null ? MemoryKind.HOST : memoryKind;
    }

    /** In host memory: what store.master 1.3 to 2.x had. */
    public SegmentStats(String name, String clientId, String protocol, long capacityBytes, long usedBytes,
            List<String> endpoints) {
        this(name, clientId, protocol, capacityBytes, usedBytes, endpoints, MemoryKind.HOST);
    }

    /** Without endpoints: what store.master 1.2 had. */
    public SegmentStats(String name, String clientId, String protocol, long capacityBytes, long usedBytes) {
        this(name, clientId, protocol, capacityBytes, usedBytes, List.of(), MemoryKind.HOST);
    }
}
