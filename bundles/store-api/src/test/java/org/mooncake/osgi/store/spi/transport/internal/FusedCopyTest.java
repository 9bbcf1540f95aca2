package org.mooncake.osgi.store.spi.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

class FusedCopyTest {
    private static final Random RANDOM = new Random(7);

    /** The CPU flags the kernel needs, as Linux lists them. */
    private static boolean cpuHasTheInstructions() throws IOException {
        Path info = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(info)) {
            return false;
        }
        try (Stream<String> lines = Files.lines(info)) {
            Set<String> flags = lines.filter(l -> l.startsWith("flags")).findFirst()
                    .map(l -> Set.of(l.substring(l.indexOf(':') + 1).trim().split("\\s+"))).orElse(Set.of());
            return flags.containsAll(Set.of("sse4_2", "pclmulqdq", "avx512f", "avx512vl", "vpclmulqdq"));
        }
    }

    private static int crc(MemorySegment data) {
        CRC32C c = new CRC32C();
        c.update(data.toArray(ValueLayout.JAVA_BYTE));
        return (int) c.getValue();
    }

    /** Where the build made the kernel and the CPU can run it, transfers use it; anywhere else they must not. */
    @Test
    void theKernelIsUsedExactlyWhereTheBuildMadeItAndTheCpuCanRunIt() throws IOException {
        boolean expected = Boolean.getBoolean("mooncake.copy.native.built") && cpuHasTheInstructions();
        assertEquals(expected, FusedCopy.available(), FusedCopy.describe());
    }

    @Test
    void lengthsAroundEveryBoundaryOfTheKernelCopyAndChecksumExactly() {
        int[] lengths = Stream.of(0, 1, 7, 8, 15, 16, 17, 63, 64, 65, 255, 256, 257, 271, 272, 511, 512, 513, 4095, 65536,
                65536 + 241, (int) FusedCopy.CALL_BYTES - 1, (int) FusedCopy.CALL_BYTES + 1,
                3 * (int) FusedCopy.CALL_BYTES + 77).mapToInt(Integer::intValue).toArray();
        try (Arena arena = Arena.ofConfined()) {
            for (int len : lengths) {
                for (int misalign : new int[] {0, 1, 13, 63}) {
                    byte[] data = new byte[len + misalign];
                    RANDOM.nextBytes(data);
                    MemorySegment from = MemorySegment.ofArray(data).asSlice(misalign, len);
                    MemorySegment native_ = arena.allocate(len + 64L).asSlice(misalign, len);
                    if (!FusedCopy.available()) {
                        assertThrows(IllegalStateException.class, () -> FusedCopy.copy(from, native_, 0));
                        continue;
                    }
                    assertEquals(crc(from), FusedCopy.copy(from, native_, 0), "heap to native, " + len + "@" + misalign);
                    assertEquals(-1, native_.mismatch(from));
                    byte[] back = new byte[len];
                    assertEquals(crc(from), FusedCopy.copy(native_, MemorySegment.ofArray(back), 0), "native to heap");
                    assertEquals(-1, MemorySegment.ofArray(back).mismatch(from));
                }
            }
        }
    }

    /** A copy continued from an earlier CRC32C gives the checksum of the two pieces as one. */
    @Test
    void aChecksumContinuesFromTheOneBefore() {
        byte[] data = new byte[300_000];
        RANDOM.nextBytes(data);
        MemorySegment whole = MemorySegment.ofArray(data);
        int expected = crc(whole);
        for (int split : new int[] {1, 255, 256, 70_001}) {
            byte[] to = new byte[data.length];
            if (!FusedCopy.available()) {
                assertThrows(IllegalStateException.class, () -> FusedCopy.copy(whole, MemorySegment.ofArray(to), 0));
                continue;
            }
            int first = FusedCopy.copy(whole.asSlice(0, split), MemorySegment.ofArray(to).asSlice(0, split), 0);
            int both = FusedCopy.copy(whole.asSlice(split), MemorySegment.ofArray(to).asSlice(split), first);
            assertEquals(expected, both, "split at " + split);
            assertEquals(-1, MemorySegment.ofArray(to).mismatch(whole));
        }
    }

    @Test
    void badTargetsFailAsMemorySegmentCopyDoes() {
        MemorySegment from = MemorySegment.ofArray(new byte[1000]);
        if (!FusedCopy.available()) {
            assertThrows(IllegalStateException.class, () -> FusedCopy.copy(from, MemorySegment.ofArray(new byte[1000]), 0));
            return;
        }
        assertThrows(UnsupportedOperationException.class,
                () -> FusedCopy.copy(from, MemorySegment.ofArray(new byte[1000]).asReadOnly(), 0));
        assertThrows(IndexOutOfBoundsException.class, () -> FusedCopy.copy(from, MemorySegment.ofArray(new byte[999]), 0));
        Arena closed = Arena.ofShared();
        MemorySegment gone = closed.allocate(1000);
        closed.close();
        assertThrows(IllegalStateException.class, () -> FusedCopy.copy(from, gone, 0));
        assertThrows(IllegalStateException.class, () -> FusedCopy.copy(gone, MemorySegment.ofArray(new byte[1000]), 0));
    }

    @Test
    void anOperatorCanTurnItOffAndOtherPlatformsGoWithout() {
        FusedCopy.Kernel off = FusedCopy.Kernel.load("false", "Linux", "amd64");
        assertNull(off.copy());
        assertTrue(off.why().contains("-Dmooncake.copy.native=false"), off.why());
        FusedCopy.Kernel mac = FusedCopy.Kernel.load("true", "Mac OS X", "aarch64");
        assertNull(mac.copy());
        assertTrue(mac.why().contains("mac os x/aarch64"), mac.why());
    }
}
