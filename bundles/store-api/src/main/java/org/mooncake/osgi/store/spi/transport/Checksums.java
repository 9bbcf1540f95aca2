package org.mooncake.osgi.store.spi.transport;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.CRC32C;

import org.mooncake.osgi.store.spi.transport.internal.FusedCopy;

/**
 * The checksum the store records for an object's bytes, CRC32C, over memory of any size, heap or
 * native, without copying it: one implementation for the clients that compute it and the
 * transports that compute it beside a copy, so that both always agree.
 */
public final class Checksums {
    /** From this size a checksum is worth a thread of its own beside the transfer (measured at 1 MiB: not below). */
    public static final long ASIDE_FROM = 4 << 20;
    /** A byte-buffer view, which {@link CRC32C} takes, cannot pass 2 GiB: one view per slice. */
    static final long SLICE = 1L << 30;
    private static final Thread OTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });
    private static final ExecutorService ASIDE = Executors.newVirtualThreadPerTaskExecutor();

    private Checksums() {
    }

    public static int crc32c(MemorySegment data) {
        CRC32C crc = new CRC32C();
        for (long off = 0; off < data.byteSize(); off += SLICE) {
            crc.update(data.asSlice(off, Math.min(SLICE, data.byteSize() - off)).asByteBuffer());
        }
        return (int) crc.getValue();
    }

    /**
     * Whether copy transports in this process copy and checksum in one pass, through the native
     * kernel (since 1.2): where they do not, a checksummed copy reads its bytes twice.
     */
    public static boolean copiesInOnePass() {
        return FusedCopy.available();
    }

    /** What copies and checksums in this process: the native kernel, or why it is not used (since 1.2). */
    public static String copyPath() {
        return FusedCopy.describe();
    }

    /** Whether {@code data} is large enough for {@link #aside}, and other threads may read it. */
    public static boolean worthAside(MemorySegment data) {
        return data.byteSize() >= ASIDE_FROM && data.isAccessibleBy(OTHER_THREAD);
    }

    /** The CRC32C of {@code data}, computed on another thread while the caller goes on. */
    public static CompletableFuture<Integer> aside(MemorySegment data) {
        return CompletableFuture.supplyAsync(() -> crc32c(data), ASIDE);
    }
}
