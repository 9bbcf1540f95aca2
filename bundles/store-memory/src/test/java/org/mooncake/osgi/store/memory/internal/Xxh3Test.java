package org.mooncake.osgi.store.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The Java XXH3 against the reference library's values. The vectors in {@code xxh3-vectors.txt}
 * came from this C program, linked with {@code -lxxhash}:
 *
 * <pre>
 * for each length n: printf("%zu %016llx\n", n, XXH3_64bits(b, n)); // b[i] = (i * 0x9E3779B97F4A7C15) >> 56
 * </pre>
 */
class Xxh3Test {
    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ((i * 0x9E3779B97F4A7C15L) >>> 56);
        }
        return b;
    }

    private static List<long[]> vectors() throws IOException {
        try (InputStream in = Xxh3Test.class.getResourceAsStream("/xxh3-vectors.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines().filter(l -> !l.startsWith("#"))
                    .map(l -> l.split(" ")).map(f -> new long[] {Long.parseLong(f[0]), Long.parseUnsignedLong(f[1], 16)})
                    .toList();
        }
    }

    /** Every path: empty, 1-3, 4-8, 9-16, 17-128, 129-240, and blocks, partial blocks and pieces beyond. */
    @Test
    void matchesTheReferenceLibraryAtEveryLengthClass() throws IOException {
        List<long[]> vectors = vectors();
        assertTrue(vectors.size() > 40, "vectors read: " + vectors.size());
        byte[] data = pattern((int) vectors.getLast()[0]);
        for (long[] v : vectors) {
            MemorySegment in = MemorySegment.ofArray(data).asSlice(0, v[0]);
            assertEquals(v[1], Xxh3.hash(in), "length " + v[0]);
        }
    }

    /** Fed in pieces of whole blocks, then a last piece of any length, the hash is the one-shot hash. */
    @Test
    void piecesOfWholeBlocksGiveTheOneShotHash() {
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            int len = 241 + random.nextInt(40_000);
            byte[] data = new byte[len];
            random.nextBytes(data);
            MemorySegment in = MemorySegment.ofArray(data);
            long piece = Xxh3.BLOCK * (1L + random.nextInt(8));
            Xxh3.Blocks hash = new Xxh3.Blocks();
            long off = 0;
            for (; len - off > piece; off += piece) {
                hash.blocks(in, off, piece);
            }
            assertEquals(Xxh3.hash(in), hash.last(in, off, len - off, len), len + " in pieces of " + piece);
        }
    }

    @Test
    void aPieceBeforeTheLastMustBeWholeBlocks() {
        MemorySegment in = MemorySegment.ofArray(new byte[4096]);
        assertThrows(IllegalArgumentException.class, () -> new Xxh3.Blocks().blocks(in, 0, 1000));
    }

    /** A checksum must see every byte: flipping any one bit of a long input changes it. */
    @Test
    void everyByteCounts() {
        byte[] data = pattern(3000);
        long whole = Xxh3.hash(MemorySegment.ofArray(data));
        for (int i = 0; i < data.length; i += 7) {
            data[i] ^= 1;
            assertNotEquals(whole, Xxh3.hash(MemorySegment.ofArray(data)), "byte " + i);
            data[i] ^= 1;
        }
    }
}
