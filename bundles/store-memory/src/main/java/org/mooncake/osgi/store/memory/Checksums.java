package org.mooncake.osgi.store.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.memory.internal.FusedCopy;
import org.mooncake.osgi.store.memory.internal.Xxh3;

/**
 * The checksum the store records for an object's bytes, XXH3-64 (xxHash 0.8, seed 0), over memory
 * of any size, heap or native, without copying it: one implementation for the clients that
 * compute it and the transports that compute it beside a copy, so that both always agree. It was
 * CRC32C before 2.0; XXH3 rides along with a copy at nearly the copy's speed, CRC32C's fold does
 * not (see {@code MemoryCopy}).
 */
public final class Checksums {
    /** From this size a checksum is worth a thread of its own beside the transfer (measured at 1 MiB: not below). */
    public static final long ASIDE_FROM = 4 << 20;
    private static final Thread OTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });
    private static final ExecutorService ASIDE = Executors.newVirtualThreadPerTaskExecutor();
    private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Checksums() {
    }

    /** The checksum of all of {@code data}: through the native kernel where there is one, else in Java. */
    public static long of(MemorySegment data) {
        return FusedCopy.available() ? FusedCopy.hash(data) : Xxh3.hash(data);
    }

    /**
     * The checksum of each consecutive {@code chunkBytes}-byte piece of {@code data} (the last may
     * be shorter), as {@link #of} computes each (since 2.1).
     */
    public static long[] ofChunks(MemorySegment data, long chunkBytes) {
        if (chunkBytes <= 0) {
            throw new IllegalArgumentException("chunk size must be > 0, was " + chunkBytes);
        }
        long size = data.byteSize();
        long[] sums = new long[(int) Math.max(1, ChunkChecksums.chunksOf(size, chunkBytes))];
        for (int i = 0; i < sums.length; i++) {
            long off = i * chunkBytes;
            sums[i] = of(data.asSlice(off, Math.min(chunkBytes, size - off)));
        }
        return sums;
    }

    /**
     * The object's checksum for its chunk checksums: the XXH3-64 of {@code chunks.sums()} as
     * consecutive little-endian 64-bit words. What a writer records at put-end and the master
     * checks against the chunks it is given (it was {@code ChunkChecksums.combined}).
     */
    public static long combine(ChunkChecksums chunks) {
        long[] sums = chunks.sums();
        MemorySegment words = MemorySegment.ofArray(new byte[sums.length * Long.BYTES]);
        for (int i = 0; i < sums.length; i++) {
            words.setAtIndex(LITTLE_ENDIAN_LONG, i, sums[i]);
        }
        return of(words);
    }

    /** {@link #ofChunks} on another thread while the caller goes on (since 2.1). */
    public static CompletableFuture<long[]> ofChunksAside(MemorySegment data, long chunkBytes) {
        return CompletableFuture.supplyAsync(() -> ofChunks(data, chunkBytes), ASIDE);
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

    /** The checksum of {@code data}, computed on another thread while the caller goes on. */
    public static CompletableFuture<Long> aside(MemorySegment data) {
        return CompletableFuture.supplyAsync(() -> of(data), ASIDE);
    }
}
