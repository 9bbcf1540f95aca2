package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** A one-sided request served by a plain copy, for transports that can map the remote segment. */
public final class MemoryCopy {
    private MemoryCopy() {
    }

    /** Runs a batch on the caller's thread, one status per request: {@link Transport#submit} for copy transports. */
    public static CompletionStage<List<TransferStatus>> each(List<TransferRequest> batch,
            Function<TransferRequest, TransferStatus> run) {
        List<TransferStatus> out = new ArrayList<>(batch.size());
        for (TransferRequest r : batch) {
            out.add(run.apply(r));
        }
        return CompletableFuture.completedFuture(out);
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
