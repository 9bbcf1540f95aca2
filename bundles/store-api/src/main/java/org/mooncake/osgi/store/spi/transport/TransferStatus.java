package org.mooncake.osgi.store.spi.transport;

import java.util.OptionalLong;

/**
 * How one request of a batch ended: all bytes moved, or a failure with a reason. A transport
 * that honoured {@link TransferRequest#checksum()} reports the checksum (XXH3-64, as Checksums.of in
 * org.mooncake.osgi.store.memory computes it) of
 * the bytes it moved, as that request defines them; for a request that asked for one per chunk
 * ({@link TransferRequest#chunked()}, since 2.1) it reports them in {@code chunkChecksums}
 * instead (null when it did not compute them).
 */
public record TransferStatus(boolean completed, long bytes, String error, OptionalLong checksum,
        long[] chunkChecksums) {
    public TransferStatus {
        if (checksum == null) {
            throw new IllegalArgumentException("checksum is required; use OptionalLong.empty()");
        }
    }

    /** A status with at most one checksum: the components of 2.0. */
    public TransferStatus(boolean completed, long bytes, String error, OptionalLong checksum) {
        this(completed, bytes, error, checksum, null);
    }

    /** A status without a checksum. */
    public TransferStatus(boolean completed, long bytes, String error) {
        this(completed, bytes, error, OptionalLong.empty(), null);
    }

    public static TransferStatus done(long bytes) {
        return new TransferStatus(true, bytes, null);
    }

    /** Done, with the checksum of the bytes moved. */
    public static TransferStatus done(long bytes, long checksum) {
        return new TransferStatus(true, bytes, null, OptionalLong.of(checksum));
    }

    /** Done, with the checksum of each chunk of the bytes moved (since 2.1). */
    public static TransferStatus doneChunked(long bytes, long[] chunkChecksums) {
        return new TransferStatus(true, bytes, null, OptionalLong.empty(), chunkChecksums);
    }

    public static TransferStatus failed(String error) {
        return new TransferStatus(false, 0, error);
    }
}
