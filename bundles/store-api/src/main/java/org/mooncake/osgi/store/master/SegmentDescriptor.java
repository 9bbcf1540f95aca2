package org.mooncake.osgi.store.master;

import java.util.List;

import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * A segment a client contributes: its unique name, the owning client, its size, every way to
 * reach it, most preferred first (in-process, then shared memory, then TCP; a reader takes the
 * first one it can reach), and the kind of memory its bytes live in ({@link MemoryKind#HOST} unless
 * the client mounted device memory; a descriptor without one, from a peer older than 3.0, is HOST),
 * and the key the master signs {@link DataGrant}s for it with (since 3.1; null: the owner checks no
 * grants, and the master issues none). The master never hands a descriptor back to anyone.
 */
public record SegmentDescriptor(String name, String clientId, long sizeBytes, List<SegmentEndpoint> endpoints,
        MemoryKind memoryKind, GrantKey grantKey) {
    public SegmentDescriptor {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        memoryKind = memoryKind == null ? MemoryKind.HOST : memoryKind;
    }

    /** A segment whose owner checks no grants: the components of 3.0. */
    public SegmentDescriptor(String name, String clientId, long sizeBytes, List<SegmentEndpoint> endpoints,
            MemoryKind memoryKind) {
        this(name, clientId, sizeBytes, endpoints, memoryKind, null);
    }

    /** A segment in host memory. */
    public SegmentDescriptor(String name, String clientId, long sizeBytes, List<SegmentEndpoint> endpoints) {
        this(name, clientId, sizeBytes, endpoints, MemoryKind.HOST);
    }

    /** A segment in host memory reachable one way. */
    public SegmentDescriptor(String name, String clientId, long sizeBytes, SegmentEndpoint endpoint) {
        this(name, clientId, sizeBytes, endpoint == null ? List.of() : List.of(endpoint), MemoryKind.HOST);
    }

    /** The most preferred way to reach the segment. */
    public SegmentEndpoint endpoint() {
        return endpoints.isEmpty() ? null : endpoints.getFirst();
    }

    /** The same segment reached through {@code newEndpoints}, in the same memory. */
    public SegmentDescriptor withEndpoints(List<SegmentEndpoint> newEndpoints) {
        return new SegmentDescriptor(name, clientId, sizeBytes, newEndpoints, memoryKind, grantKey);
    }
}
