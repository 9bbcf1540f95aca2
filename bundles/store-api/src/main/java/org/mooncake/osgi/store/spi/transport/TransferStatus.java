package org.mooncake.osgi.store.spi.transport;

import java.util.OptionalLong;

/**
 * How one request of a batch ended: all bytes moved, or a failure with a reason. A transport
 * that honoured {@link TransferRequest#checksum()} reports the checksum ({@link Checksums#of}) of
 * the bytes it moved, as that request defines them.
 */
public record TransferStatus(boolean completed, long bytes, String error, OptionalLong checksum) {
    public TransferStatus {
        if (checksum == null) {
            throw new IllegalArgumentException("checksum is required; use OptionalLong.empty()");
        }
    }

    /** A status without a checksum. */
    public TransferStatus(boolean completed, long bytes, String error) {
        this(completed, bytes, error, OptionalLong.empty());
    }

    public static TransferStatus done(long bytes) {
        return new TransferStatus(true, bytes, null);
    }

    /** Done, with the checksum of the bytes moved. */
    public static TransferStatus done(long bytes, long checksum) {
        return new TransferStatus(true, bytes, null, OptionalLong.of(checksum));
    }

    public static TransferStatus failed(String error) {
        return new TransferStatus(false, 0, error);
    }
}
