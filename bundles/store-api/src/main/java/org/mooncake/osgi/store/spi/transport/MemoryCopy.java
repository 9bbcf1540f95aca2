package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.MemorySegment;

/** A one-sided request served by a plain copy, for transports that can map the remote segment. */
public final class MemoryCopy {
    private MemoryCopy() {
    }

    /**
     * Runs {@code r} against {@code remote} (the mapped target segment): checks the range, copies,
     * and turns every failure (range, a closed arena, read-only memory) into a status.
     */
    public static TransferStatus run(TransferRequest r, MemorySegment remote) {
        long len = r.length();
        if (r.remoteOffset() > remote.byteSize() - len) {
            return TransferStatus.failed("range " + r.remoteOffset() + "+" + len + " is outside segment "
                    + r.remote().segmentName() + " of " + remote.byteSize() + " bytes");
        }
        try {
            if (r.op() == TransferOp.WRITE) {
                MemorySegment.copy(r.local(), 0, remote, r.remoteOffset(), len);
            } else {
                MemorySegment.copy(remote, r.remoteOffset(), r.local(), 0, len);
            }
            return TransferStatus.done(len);
        } catch (IllegalStateException | IndexOutOfBoundsException | UnsupportedOperationException e) {
            // the owner closed its arena mid-transfer, or the local memory is read-only
            return TransferStatus.failed(e.toString());
        }
    }
}
