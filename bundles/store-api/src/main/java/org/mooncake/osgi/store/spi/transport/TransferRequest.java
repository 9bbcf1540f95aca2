package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.MemorySegment;

import org.mooncake.osgi.store.master.SegmentEndpoint;

/**
 * Move all of {@code local} to or from {@code remoteOffset} in the remote segment. {@code local}
 * should be registered with the transport first where the transport needs that (RDMA, GPU).
 */
public record TransferRequest(TransferOp op, MemorySegment local, SegmentEndpoint remote, long remoteOffset) {
    public TransferRequest {
        if (op == null || local == null || remote == null || remoteOffset < 0) {
            throw new IllegalArgumentException("op, local memory, remote endpoint and offset >= 0 are required");
        }
    }

    public long length() {
        return local.byteSize();
    }
}
