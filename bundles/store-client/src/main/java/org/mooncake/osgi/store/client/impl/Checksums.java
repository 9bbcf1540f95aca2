package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/** CRC32C over a memory segment of any size, heap or native, without copying it. */
final class Checksums {
    private static final long SLICE = 1L << 30;

    private Checksums() {
    }

    /** Below this a thread hand-off costs more than the checksum (measured at 1 MiB). */
    private static final long PARALLEL_FROM = 4 << 20;
    private static final Thread OTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });
    private static final java.util.concurrent.Executor WORKERS =
            java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();

    /**
     * Whether to compute the CRC32C of {@code data} on another thread, beside the transfer: only
     * for large memory that other threads may read. Smaller data is checksummed by the transport
     * beside its copy, or by the caller.
     */
    static boolean worthAside(MemorySegment data) {
        return data.byteSize() >= PARALLEL_FROM && data.isAccessibleBy(OTHER_THREAD);
    }

    /** The CRC32C of {@code data}, computed on another thread. */
    static java.util.concurrent.CompletableFuture<Integer> aside(MemorySegment data) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> crc32c(data), WORKERS);
    }

    static int crc32c(MemorySegment data) {
        CRC32C crc = new CRC32C();
        for (long off = 0; off < data.byteSize(); off += SLICE) {
            crc.update(data.asSlice(off, Math.min(SLICE, data.byteSize() - off)).asByteBuffer());
        }
        return (int) crc.getValue();
    }
}
