package org.mooncake.osgi.store.master;

/**
 * Where a segment can be reached: the transport protocol, an address that protocol
 * understands, and the segment's name at that address.
 */
public record SegmentEndpoint(String protocol, String address, String segmentName) {
    public SegmentEndpoint {
        if (protocol == null || protocol.isEmpty() || address == null || segmentName == null || segmentName.isEmpty()) {
            throw new IllegalArgumentException("protocol, address and segment name are required");
        }
    }
}
