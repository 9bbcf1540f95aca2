package org.mooncake.osgi.store.master;

/**
 * A segment a client contributes: its unique name, the owning client, its size and how to reach it.
 */
public record SegmentDescriptor(String name, String clientId, long sizeBytes, SegmentEndpoint endpoint) {
}
