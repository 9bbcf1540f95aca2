package org.mooncake.osgi.store.spi.transport;

import java.util.OptionalInt;

/**
 * How one request of a batch ended: all bytes moved, or a failure with a reason. A transport
 * that honoured {@link TransferRequest#checksum()} reports the CRC32C of the bytes it moved, as
 * that request defines them.
 */
public record TransferStatus(boolean completed, long bytes, String error, OptionalInt crc32c) {
    public TransferStatus {
        if (crc32c == null) {
            throw new IllegalArgumentException("crc32c is required; use OptionalInt.empty()");
        }
    }

    /** A status without a checksum (the form before 1.1). */
    public TransferStatus(boolean completed, long bytes, String error) {
        this(completed, bytes, error, OptionalInt.empty());
    }

    public static TransferStatus done(long bytes) {
        return new TransferStatus(true, bytes, null);
    }

    /** Done, with the CRC32C of the bytes moved. */
    public static TransferStatus done(long bytes, int crc32c) {
        return new TransferStatus(true, bytes, null, OptionalInt.of(crc32c));
    }

    public static TransferStatus failed(String error) {
        return new TransferStatus(false, 0, error);
    }
}
