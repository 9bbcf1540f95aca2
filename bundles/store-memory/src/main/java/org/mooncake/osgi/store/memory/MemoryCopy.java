package org.mooncake.osgi.store.memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.memory.internal.FusedCopy;
import org.mooncake.osgi.store.memory.internal.Xxh3;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;

/** A one-sided request served by a plain copy, for transports that can map the remote segment. */
public final class MemoryCopy {
    private MemoryCopy() {
    }

    /** Runs a batch on the caller's thread, one status per request: {@link Transport#submit} for copy transports. */
    public static CompletionStage<List<TransferStatus>> each(List<TransferRequest> batch,
            Function<TransferRequest, TransferStatus> run) {
        if (batch.size() == 1) {
            return CompletableFuture.completedFuture(List.of(run.apply(batch.getFirst())));
        }
        List<TransferStatus> out = new ArrayList<>(batch.size());
        for (TransferRequest r : batch) {
            out.add(run.apply(r));
        }
        return CompletableFuture.completedFuture(out);
    }

    /**
     * Runs {@code r} against {@code remote} (the mapped target segment): checks the range, copies
     * (with the checksum beside the copy if {@code r} asks for it), and turns every failure
     * (range, a closed arena, read-only memory) into a status.
     */
    public static TransferStatus run(TransferRequest r, MemorySegment remote) {
        long len = r.length();
        if (r.remoteOffset() > remote.byteSize() - len) {
            return TransferStatus.failed("range " + r.remoteOffset() + "+" + len + " is outside segment "
                    + r.remote().segmentName() + " of " + remote.byteSize() + " bytes");
        }
        MemorySegment range = remote.asSlice(r.remoteOffset(), len);
        if (r.local().asOverlappingSlice(range).isPresent()) {
            // no copy, checksummed or not, has a meaning here; and the stepped and native copies
            // run forwards, so they would read bytes they had already overwritten
            return TransferStatus.failed("local memory overlaps range " + r.remoteOffset() + "+" + len + " of segment "
                    + r.remote().segmentName());
        }
        MemorySegment from = r.op() == TransferOp.WRITE ? r.local() : range;
        MemorySegment to = r.op() == TransferOp.WRITE ? range : r.local();
        try {
            if (r.chunked()) {
                return TransferStatus.doneChunked(len, copyWithChunkChecksums(from, to, r.checksumChunkBytes()));
            }
            if (r.checksum()) {
                return TransferStatus.done(len, copyWithChecksum(from, to));
            }
            MemorySegment.copy(from, 0, to, 0, len);
            return TransferStatus.done(len);
        } catch (IllegalStateException | IndexOutOfBoundsException | UnsupportedOperationException e) {
            // the owner closed its arena mid-transfer, or the local memory is read-only
            return TransferStatus.failed(e.toString());
        }
    }

    /**
     * Each step is checksummed, then copied while it is still in L1 (measured with CRC32C on a
     * 2-vCPU EPYC VM, 1 MiB from a {@code /dev/shm} mapping: 33 µs in 8–16 KiB steps against 40 µs
     * as two whole passes; the pass that misses the cache must be the checksum, whose arithmetic
     * hides the misses). A multiple of {@link Xxh3#BLOCK}.
     */
    static final long CHECKSUM_STEP = 16 * 1024;

    /**
     * Copies {@code from} into {@code to} (same size) and returns the checksum. For a READ that is
     * of the remote bytes as the copy reads them: a leased block never changes (the master frees
     * it only after the lease), and a change during the copy leaves a mix that fails the check.
     * With the native kernel ({@link FusedCopy}) in one pass at every size, each byte read once
     * (on our Zen 4 VM a 64 KiB copy with XXH3 took 1.3x a bare copy; with CRC32C, the checksum
     * before 2.0, 1.9x). Without it, in Java: from {@link Checksums#ASIDE_FROM} with the checksum
     * on another thread, below in steps.
     */
    static long copyWithChecksum(MemorySegment from, MemorySegment to) {
        if (FusedCopy.available()) {
            return FusedCopy.copy(from, to);
        }
        return Checksums.worthAside(from) ? copyWithChecksumAside(from, to) : checksumThenCopyInSteps(from, to);
    }

    /**
     * {@link #copyWithChecksum} chunk by chunk: one checksum per {@code chunkBytes} piece, each
     * computed in the same pass as its piece's copy where the native kernel runs.
     */
    static long[] copyWithChunkChecksums(MemorySegment from, MemorySegment to, long chunkBytes) {
        long size = from.byteSize();
        long[] sums = new long[(int) Math.max(1, ChunkChecksums.chunksOf(size, chunkBytes))];
        for (int i = 0; i < sums.length; i++) {
            long off = i * chunkBytes;
            long len = Math.min(chunkBytes, size - off);
            sums[i] = copyWithChecksum(from.asSlice(off, len), to.asSlice(off, len));
        }
        return sums;
    }

    /**
     * Each step's source checksummed just before it is copied: two passes, the second in cache.
     * Only a write outside the store's protocol inside one step could pass unseen.
     */
    static long checksumThenCopyInSteps(MemorySegment from, MemorySegment to) {
        Xxh3.Blocks hash = new Xxh3.Blocks();
        long len = from.byteSize();
        long start = 0;
        for (; len - start > CHECKSUM_STEP; start += CHECKSUM_STEP) {
            hash.blocks(from, start, CHECKSUM_STEP);
            MemorySegment.copy(from, start, to, start, CHECKSUM_STEP);
        }
        long checksum = hash.last(from, start, len - start, len);
        MemorySegment.copy(from, start, to, start, len - start);
        return checksum;
    }

    /**
     * The copy here, the checksum of the source on another thread (from {@link
     * Checksums#ASIDE_FROM}: on a 2-vCPU VM a 32 MB shm get in 16 KiB steps ran at 9–10.7 GiB/s,
     * half of what memcpy reached in some runs; aside, the copy sets the pace). For a READ that is
     * again the remote bytes as they are read, now over the whole transfer rather than a step:
     * sound for the same reason (a leased block does not change), but a write outside the store's
     * protocol during the transfer could pass unseen.
     */
    static long copyWithChecksumAside(MemorySegment from, MemorySegment to) {
        CompletableFuture<Long> checksum = Checksums.aside(from);
        MemorySegment.copy(from, 0, to, 0, from.byteSize());
        try {
            return checksum.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e; // a closed arena, as for the copy
        }
    }
}
