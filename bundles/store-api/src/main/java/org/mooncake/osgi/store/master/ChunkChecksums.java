package org.mooncake.osgi.store.master;

import java.util.Arrays;

/**
 * The checksums of an object's consecutive {@code chunkBytes}-byte pieces (the last may be
 * shorter), XXH3-64 each, recorded at put for objects of more than one chunk, so that a reader
 * can verify just the chunks it moves. The object's single checksum is then their combination:
 * the XXH3-64 of the chunk checksums as consecutive little-endian 64-bit words (Checksums.combine
 * in org.mooncake.osgi.store.memory computes it; this contract-only type does not, since 3.0). An
 * object of one chunk has no chunk checksums; its checksum is that of its bytes. Immutable.
 * Since 2.1.
 */
public record ChunkChecksums(long chunkBytes, long[] sums) {
    /** Smallest chunk a writer may choose: below this the metadata outweighs what a range saves. */
    public static final long MIN_CHUNK_BYTES = 4096;

    public ChunkChecksums {
        if (chunkBytes < MIN_CHUNK_BYTES || sums == null || sums.length < 2) {
            throw new IllegalArgumentException("chunks of >= " + MIN_CHUNK_BYTES
                    + " bytes and at least two chunk checksums are required");
        }
        sums = sums.clone();
    }

    /** How many chunks of {@code chunkBytes} an object of {@code sizeBytes} has. */
    public static long chunksOf(long sizeBytes, long chunkBytes) {
        return (sizeBytes + chunkBytes - 1) / chunkBytes;
    }

    /** Whether this fits an object of {@code sizeBytes}: one checksum per chunk. */
    public boolean fits(long sizeBytes) {
        return chunksOf(sizeBytes, chunkBytes) == sums.length;
    }

    public int count() {
        return sums.length;
    }

    public long sum(int chunk) {
        return sums[chunk];
    }

    /** A copy of the checksums. */
    @Override
    public long[] sums() {
        return sums.clone();
    }

    /** Whether chunks {@code [from, from + actual.length)} have these checksums. */
    public boolean matches(int from, long[] actual) {
        return from >= 0 && from + actual.length <= sums.length
                && Arrays.equals(sums, from, from + actual.length, actual, 0, actual.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkChecksums c && c.chunkBytes == chunkBytes && Arrays.equals(c.sums, sums);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(chunkBytes) * 31 + Arrays.hashCode(sums);
    }

    @Override
    public String toString() {
        return "ChunkChecksums[" + sums.length + " x " + chunkBytes + " bytes]";
    }
}
