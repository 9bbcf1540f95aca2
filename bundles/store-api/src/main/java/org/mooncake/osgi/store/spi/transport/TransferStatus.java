package org.mooncake.osgi.store.spi.transport;

import java.util.OptionalLong;

/**
 * How one request of a batch ended: all bytes moved, or a failure with a reason. A transport
 * that honoured {@link TransferRequest#checksum()} reports the checksum (XXH3-64, as Checksums.of in
 * org.mooncake.osgi.store.memory computes it) of
 * the bytes it moved, as that request defines them; for a request that asked for one per chunk
 * ({@link TransferRequest#chunked()}, since 2.1) it reports them in {@code chunkChecksums}
 * instead (null when it did not compute them).
 *
 * <p>{@code inDoubt} (since 3.1): the request failed, but its bytes may still reach the target
 * later: a WRITE sent to a peer that did not answer in time (stalled, not gone) sits in the
 * peer's socket buffer and is applied when the peer runs again. Whoever owns the target range must
 * not hand it out again until the request's grant has expired (the peer then refuses it). A
 * failure the peer reported, or a connection the peer closed, is not in doubt.
 */
public record TransferStatus(boolean completed, long bytes, String error, OptionalLong checksum,
        long[] chunkChecksums, boolean inDoubt) {
    public TransferStatus {
        if (checksum == null) {
            throw new IllegalArgumentException("checksum is required; use OptionalLong.empty()");
        }
    }

    /** A status whose failure is certain: the components of 2.1 to 3.0. */
    public TransferStatus(boolean completed, long bytes, String error, OptionalLong checksum, long[] chunkChecksums) {
        this(completed, bytes, error, checksum, chunkChecksums, false);
    }

    /** A status with at most one checksum: the components of 2.0. */
    public TransferStatus(boolean completed, long bytes, String error, OptionalLong checksum) {
        this(completed, bytes, error, checksum, null, false);
    }

    /** A status without a checksum. */
    public TransferStatus(boolean completed, long bytes, String error) {
        this(completed, bytes, error, OptionalLong.empty(), null, false);
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
        return new TransferStatus(true, bytes, null, OptionalLong.empty(), chunkChecksums, false);
    }

    public static TransferStatus failed(String error) {
        return new TransferStatus(false, 0, error);
    }

    /** Failed, with its bytes possibly still on their way to the target (see the class comment; since 3.1). */
    public static TransferStatus failedInDoubt(String error) {
        return new TransferStatus(false, 0, error, OptionalLong.empty(), null, true);
    }
}
