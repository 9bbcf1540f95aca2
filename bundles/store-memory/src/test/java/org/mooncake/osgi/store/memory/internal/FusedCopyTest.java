package org.mooncake.osgi.store.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

class FusedCopyTest {
    private static final Random RANDOM = new Random(7);

    /** Whether Linux lists {@code flag} among the CPU's flags. */
    private static boolean cpuHas(String flag) throws IOException {
        Path info = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(info)) {
            return false;
        }
        try (Stream<String> lines = Files.lines(info)) {
            Set<String> flags = lines.filter(l -> l.startsWith("flags")).findFirst()
                    .map(l -> Set.of(l.substring(l.indexOf(':') + 1).trim().split("\\s+"))).orElse(Set.of());
            return flags.contains(flag);
        }
    }

    private static final boolean X86 = Set.of("amd64", "x86_64").contains(System.getProperty("os.arch"));

    /** Whether the CPU runs one of the kernel's lanes: AVX-512 or AVX2 on x86-64; NEON, part of every aarch64. */
    private static boolean cpuHasTheInstructions() throws IOException {
        return X86 ? cpuHas("avx512f") || cpuHas("avx2") : System.getProperty("os.arch").equals("aarch64");
    }

    private static long hash(MemorySegment data) {
        return Xxh3.hash(data);
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
                        assertThrows(IllegalStateException.class, () -> FusedCopy.copy(from, native_));
                        continue;
                    }
                    assertEquals(hash(from), FusedCopy.copy(from, native_), "heap to native, " + len + "@" + misalign);
                    assertEquals(-1, native_.mismatch(from));
                    byte[] back = new byte[len];
                    assertEquals(hash(from), FusedCopy.copy(native_, MemorySegment.ofArray(back)), "native to heap");
                    assertEquals(-1, MemorySegment.ofArray(back).mismatch(from));
                }
            }
        }
    }

    /** Hashing alone gives what the copy gives, and the Java XXH3, at every piece boundary of a call. */
    @Test
    void hashingWithoutACopyAgreesWithTheCopyAndWithJava() {
        long call = FusedCopy.CALL_BYTES;
        for (long len : new long[] {0, 3, 240, 241, 4096, call + Xxh3.BLOCK, call + Xxh3.BLOCK + 1,
                2 * call + Xxh3.BLOCK + 1, 2 * call + 2 * Xxh3.BLOCK}) {
            byte[] data = new byte[(int) len];
            RANDOM.nextBytes(data);
            MemorySegment whole = MemorySegment.ofArray(data);
            if (!FusedCopy.available()) {
                assertThrows(IllegalStateException.class, () -> FusedCopy.hash(whole));
                continue;
            }
            long expected = Xxh3.hash(whole);
            assertEquals(expected, FusedCopy.hash(whole), "hash of " + len);
            byte[] to = new byte[data.length];
            assertEquals(expected, FusedCopy.copy(whole, MemorySegment.ofArray(to)), "copy of " + len);
            assertEquals(-1, MemorySegment.ofArray(to).mismatch(whole));
        }
    }

    /**
     * The AVX2 lanes, which this machine's kernel may not pick, give the same copy and hash: a
     * second instance of the library, kept to AVX2, against the Java XXH3.
     */
    @Test
    void theAvx2LanesAgreeWithJavaToo() throws IOException {
        FusedCopy.Kernel avx2 = FusedCopy.Kernel.load("avx2", "Linux", "amd64");
        if (!FusedCopy.available() || !X86) {
            assertNull(avx2.last(), avx2.why());
            return;
        }
        assertEquals(cpuHas("avx2") ? "native AVX2 kernel" : "this CPU has neither AVX-512 nor AVX2", avx2.why());
        for (long len : new long[] {0, 17, 240, 241, 1024, 1025, 65536 + 63, FusedCopy.CALL_BYTES + Xxh3.BLOCK + 1,
                2 * FusedCopy.CALL_BYTES + 3 * Xxh3.BLOCK}) {
            byte[] data = new byte[(int) len];
            RANDOM.nextBytes(data);
            MemorySegment from = MemorySegment.ofArray(data);
            byte[] to = new byte[data.length];
            assertEquals(Xxh3.hash(from), FusedCopy.hash(avx2, from), "hash of " + len);
            assertEquals(Xxh3.hash(from), FusedCopy.copy(avx2, from, MemorySegment.ofArray(to)), "copy of " + len);
            assertEquals(-1, MemorySegment.ofArray(to).mismatch(from));
        }
    }

    @Test
    void badTargetsFailAsMemorySegmentCopyDoes() {
        MemorySegment from = MemorySegment.ofArray(new byte[1000]);
        if (!FusedCopy.available()) {
            assertThrows(IllegalStateException.class, () -> FusedCopy.copy(from, MemorySegment.ofArray(new byte[1000])));
            return;
        }
        assertThrows(UnsupportedOperationException.class,
                () -> FusedCopy.copy(from, MemorySegment.ofArray(new byte[1000]).asReadOnly()));
        assertThrows(IndexOutOfBoundsException.class, () -> FusedCopy.copy(from, MemorySegment.ofArray(new byte[999])));
        Arena closed = Arena.ofShared();
        MemorySegment gone = closed.allocate(1000);
        closed.close();
        assertThrows(IllegalStateException.class, () -> FusedCopy.copy(from, gone));
        assertThrows(IllegalStateException.class, () -> FusedCopy.copy(gone, MemorySegment.ofArray(new byte[1000])));
    }

    @Test
    void anOperatorCanTurnItOffAndOtherPlatformsGoWithout() {
        FusedCopy.Kernel off = FusedCopy.Kernel.load("false", "Linux", "amd64");
        assertNull(off.last());
        assertTrue(off.why().contains("-Dmooncake.copy.native=false"), off.why());
        FusedCopy.Kernel mac = FusedCopy.Kernel.load("true", "Mac OS X", "aarch64");
        assertNull(mac.last());
        assertTrue(mac.why().contains("mac os x/aarch64"), mac.why());
        FusedCopy.Kernel riscv = FusedCopy.Kernel.load("true", "Linux", "riscv64");
        assertNull(riscv.last());
        assertTrue(riscv.why().contains("linux/riscv64"), riscv.why());
    }

    /**
     * A bundle built on x86-64 with a cross gcc also carries the aarch64 kernel (and the other way
     * round): each arch finds its own, and the other's library is refused by the loader, never run.
     */
    @Test
    void eachArchTakesItsOwnKernelAndRefusesTheOther() {
        assertEquals("/native/linux-x86_64/libmooncake-copy.so", FusedCopy.resource("amd64"));
        assertEquals("/native/linux-aarch64/libmooncake-copy.so", FusedCopy.resource("aarch64"));
        String other = X86 ? "aarch64" : "amd64";
        FusedCopy.Kernel foreign = FusedCopy.Kernel.load("true", "Linux", other);
        assertNull(foreign.last(), foreign.why());
        boolean bundled = FusedCopy.class.getResource(FusedCopy.resource(other)) != null;
        assertTrue(foreign.why().contains(bundled ? "does not load here" : "was not built"), foreign.why());
    }
}
