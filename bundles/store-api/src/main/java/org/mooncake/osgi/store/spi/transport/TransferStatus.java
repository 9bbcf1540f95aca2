package org.mooncake.osgi.store.spi.transport;

/** How one request of a batch ended: all bytes moved, or a failure with a reason. */
public record TransferStatus(boolean completed, long bytes, String error) {
    public static TransferStatus done(long bytes) {
        return new TransferStatus(true, bytes, null);
    }

    public static TransferStatus failed(String error) {
        return new TransferStatus(false, 0, error);
    }
}
