package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.zip.CRC32C;

import org.mooncake.osgi.store.spi.transport.internal.FusedCopy;

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
            if (r.checksum()) {
                return TransferStatus.done(len, copyWithChecksum(from, to, Checksums.SLICE));
            }
            MemorySegment.copy(from, 0, to, 0, len);
            return TransferStatus.done(len);
        } catch (IllegalStateException | IndexOutOfBoundsException | UnsupportedOperationException e) {
            // the owner closed its arena mid-transfer, or the local memory is read-only
            return TransferStatus.failed(e.toString());
        }
    }

    /**
     * Each step is checksummed, then copied while it is still in L1. Measured on a 2-vCPU EPYC VM,
     * 1 MiB from a {@code /dev/shm} mapping, p50: checksum then copy in 8–16 KiB steps 33 µs;
     * as two whole passes 40 µs; copy first and then checksum either side, in any step, 41–43 µs
     * (the pass that misses the cache must be the checksum, whose arithmetic hides the misses);
     * 32 KiB steps and more no longer fit L1 beside the copy's writes. The copy alone 22 µs.
     */
    static final long CHECKSUM_STEP = 16 * 1024;

    /**
     * Copies {@code from} into {@code to} (same size) and returns the CRC32C. For a READ that is
     * of the remote bytes as the copy reads them: a leased block never changes (the master frees
     * it only after the lease), and a change during the copy leaves a mix that fails the check.
     * With the native kernel ({@link FusedCopy}) in one pass at every size, each byte read once:
     * from 32 MB on it is as fast as the Java copy with the checksum on another thread (JMH
     * {@code ChecksummedCopyBenchmark}: 1.1–1.7 ms against 1.5–1.6 at 32 MB, 13.4 against 13.2 ms
     * at 206 MB) and leaves the other core free. Without it, in Java: from {@link
     * Checksums#ASIDE_FROM} with the checksum on another thread, below in steps ({@code window}
     * bytes per buffer view).
     */
    static int copyWithChecksum(MemorySegment from, MemorySegment to, long window) {
        if (FusedCopy.available()) {
            return FusedCopy.copy(from, to, 0);
        }
        return Checksums.worthAside(from) ? copyWithChecksumAside(from, to) : checksumThenCopyInSteps(from, to, window);
    }

    /**
     * Each step's source checksummed just before it is copied: two passes, the second in cache.
     * Only a write outside the store's protocol inside one step could pass unseen.
     */
    static int checksumThenCopyInSteps(MemorySegment from, MemorySegment to, long window) {
        CRC32C crc = new CRC32C();
        long len = from.byteSize();
        for (long start = 0; start < len; start += window) {
            ByteBuffer view = from.asSlice(start, Math.min(window, len - start)).asByteBuffer();
            for (int at = 0; at < view.capacity(); at += (int) CHECKSUM_STEP) {
                int n = (int) Math.min(CHECKSUM_STEP, view.capacity() - at);
                crc.update(view.limit(at + n).position(at));
                MemorySegment.copy(from, start + at, to, start + at, n);
            }
        }
        return (int) crc.getValue();
    }

    /**
     * The copy here, the checksum of the source on another thread (from {@link
     * Checksums#ASIDE_FROM}: on a 2-vCPU VM a 32 MB shm get in 16 KiB steps ran at 9–10.7 GiB/s,
     * half of what memcpy reached in some runs; aside, the copy sets the pace). For a READ that is
     * again the remote bytes as they are read, now over the whole transfer rather than a step:
     * sound for the same reason (a leased block does not change), but a write outside the store's
     * protocol during the transfer could pass unseen.
     */
    static int copyWithChecksumAside(MemorySegment from, MemorySegment to) {
        CompletableFuture<Integer> crc = Checksums.aside(from);
        MemorySegment.copy(from, 0, to, 0, from.byteSize());
        try {
            return crc.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e; // a closed arena, as for the copy
        }
    }
}
