package org.mooncake.osgi.transport.ucx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * One request of a batch. Run as a plain copy where the segment is mapped here ({@link
 * Transfers#copyHere}), or else {@link #prepare prepared} on the submitting thread: the memory UCX
 * moves (the caller's native memory itself, or a native copy of heap memory, which UCX cannot be
 * handed across the garbage collector's moves), and for a WRITE its checksum, computed before the
 * transfer or beside it. Driven under the worker's lock ({@link Transfers}); finished by {@link
 * #finish} (copy back into heap memory, READ checksums) on the submitter's thread, or off the
 * worker thread.
 */
final class Op {
    /** Never started: asks whether memory may be used off the caller's thread. */
    private static final Thread OTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    final TransferRequest request;
    final Batch batch;
    final long deadline;
    /** The caller's memory belongs to its thread's confined arena: the caller waits and finishes. */
    final boolean confined;
    /** What UCX reads from or writes into; set by {@link #prepare}. */
    MemorySegment buffer;
    private boolean bounced;
    private long checksum;
    private long[] chunkChecksums;
    private CompletableFuture<?> aside;

    // state guarded by the worker's lock
    Peers.Peer peer;
    UcxAddress target;
    final MemorySegment[] requests = new MemorySegment[3];
    byte failure;
    int cell = -1;
    /** Set once moved: failed, or null when all bytes moved and the segment was still served. */
    TransferStatus failed;
    /** Moved by a plain copy through this process's mapping, with its checksums: the status. */
    TransferStatus copied;

    Op(TransferRequest r, Batch batch, long deadline) {
        this.request = r;
        this.batch = batch;
        this.deadline = deadline;
        MemorySegment local = r.local();
        confined = local.isNative() && !local.isAccessibleBy(OTHER_THREAD);
    }

    /** For UCX to move it; on the submitting thread, without the worker's lock. */
    void prepare() {
        TransferRequest r = request;
        MemorySegment local = r.local();
        long len = local.byteSize();
        if (local.isNative()) {
            // the worker thread may not touch a confined segment; the caller keeps it alive by waiting
            buffer = confined ? MemorySegment.ofAddress(local.address()).reinterpret(len) : local;
            bounced = false;
        } else {
            bounced = true;
            buffer = Arena.ofAuto().allocate(Math.max(1, len), 64).asSlice(0, len);
            if (r.op() == TransferOp.WRITE) {
                MemorySegment.copy(local, 0, buffer, 0, len);
            }
        }
        if (r.op() == TransferOp.WRITE && r.checksum()) {
            MemorySegment source = bounced ? buffer : local;
            boolean beside = Checksums.worthAside(source);
            if (r.chunked()) {
                if (beside) {
                    aside = Checksums.ofChunksAside(source, r.checksumChunkBytes());
                } else {
                    chunkChecksums = Checksums.ofChunks(source, r.checksumChunkBytes());
                }
            } else if (beside) {
                aside = Checksums.aside(source);
            } else {
                checksum = Checksums.of(source);
            }
        }
    }

    /** The status: bytes copied back into heap memory and checksums taken; runs off the worker thread. */
    TransferStatus finish() {
        if (failed != null) {
            return failed;
        }
        if (copied != null) {
            return copied;
        }
        TransferRequest r = request;
        long len = r.length();
        if (r.op() == TransferOp.READ) {
            if (bounced) {
                MemorySegment.copy(buffer, 0, r.local(), 0, len);
            }
            if (r.chunked()) {
                return TransferStatus.doneChunked(len, Checksums.ofChunks(r.local(), r.checksumChunkBytes()));
            }
            return r.checksum() ? TransferStatus.done(len, Checksums.of(r.local())) : TransferStatus.done(len);
        }
        if (aside != null) {
            Object sums = aside.join();
            return sums instanceof long[] chunks ? TransferStatus.doneChunked(len, chunks)
                    : TransferStatus.done(len, (Long) sums);
        }
        if (r.chunked()) {
            return TransferStatus.doneChunked(len, chunkChecksums);
        }
        return r.checksum() ? TransferStatus.done(len, checksum) : TransferStatus.done(len);
    }
}
