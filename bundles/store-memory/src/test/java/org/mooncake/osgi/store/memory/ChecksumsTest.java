package org.mooncake.osgi.store.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.memory.internal.Xxh3;

class ChecksumsTest {
    @Test
    void anObjectsChecksumIsTheXxh3OfItsChunkChecksumsAsLittleEndianWords() {
        byte[] data = new byte[5 * 4096 + 17];
        new Random(7).nextBytes(data);
        long[] sums = Checksums.ofChunks(MemorySegment.ofArray(data), 4096);
        ByteBuffer words = ByteBuffer.allocate(sums.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long s : sums) {
            words.putLong(s);
        }
        ChunkChecksums chunks = new ChunkChecksums(4096, sums);
        assertEquals(Xxh3.hash(MemorySegment.ofArray(words.array())), Checksums.combine(chunks));
        assertEquals(Checksums.of(MemorySegment.ofArray(words.array())), Checksums.combine(chunks));
        sums[2]++;
        assertNotEquals(Checksums.combine(chunks), Checksums.combine(new ChunkChecksums(4096, sums)));
    }
}
