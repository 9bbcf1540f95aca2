package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.MemorySegment;

import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.SegmentEndpoint;

/**
 * Move all of {@code local} to or from {@code remoteOffset} in the remote segment. {@code local}
 * should be registered with the transport first where the transport needs that (RDMA, GPU).
 *
 * <p>{@code checksum} asks for the checksum (XXH3-64, as Checksums.of in org.mooncake.osgi.store.memory
 * computes it) of the bytes moved in the status: of {@code local} for a
 * WRITE, of the remote bytes as they were read for a READ. A transport may compute it beside the
 * copy, while each piece is in cache, which costs less than a separate pass; one that cannot
 * returns no checksum and the caller computes it itself. With {@code checksumChunkBytes} > 0
 * (since 2.1) the checksum asked for is one per consecutive piece of that many bytes of
 * {@code local} (the last may be shorter), as Checksums.ofChunks (org.mooncake.osgi.store.memory)
 * computes them.
 *
 * <p>{@code grant} (since 3.1): the master's permission for this request (a read lease's or put
 * ticket's {@link DataGrant}, whose range covers the request's), sent along by a transport whose
 * peers check grants; null where there is none.
 */
public record TransferRequest(TransferOp op, MemorySegment local, SegmentEndpoint remote, long remoteOffset,
        boolean checksum, long checksumChunkBytes, DataGrant grant) {
    public TransferRequest {
        if (op == null || local == null || remote == null || remoteOffset < 0 || checksumChunkBytes < 0) {
            throw new IllegalArgumentException(
                    "op, local memory, remote endpoint, offset >= 0 and chunk size >= 0 are required");
        }
    }

    /** A request without a grant: the components of 2.1 to 3.0. */
    public TransferRequest(TransferOp op, MemorySegment local, SegmentEndpoint remote, long remoteOffset,
            boolean checksum, long checksumChunkBytes) {
        this(op, local, remote, remoteOffset, checksum, checksumChunkBytes, null);
    }

    /** A request with one checksum of all it moves, if {@code checksum}: the components of 2.0. */
    public TransferRequest(TransferOp op, MemorySegment local, SegmentEndpoint remote, long remoteOffset,
            boolean checksum) {
        this(op, local, remote, remoteOffset, checksum, 0, null);
    }

    /** A request without a checksum. */
    public TransferRequest(TransferOp op, MemorySegment local, SegmentEndpoint remote, long remoteOffset) {
        this(op, local, remote, remoteOffset, false, 0, null);
    }

    public long length() {
        return local.byteSize();
    }

    /** Whether the checksum asked for is one per chunk (since 2.1). */
    public boolean chunked() {
        return checksum && checksumChunkBytes > 0;
    }
}
