package org.mooncake.osgi.store.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.mooncake.osgi.store.memory.internal.FusedCopy;
import org.mooncake.osgi.store.memory.internal.Xxh3;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A copy transport's checksummed copy, side by side with a bare copy: the native kernel ({@link
 * FusedCopy}, one pass), the Java path (checksum then copy in 16 KiB steps), the checksum on
 * another thread (what copies from {@link Checksums#ASIDE_FROM} use), the checksum alone (XXH3,
 * native where the kernel is, and in Java) and the JDK's CRC32C alone, the store's checksum before 2.0.
 * Buffers start on a page, as the transfer benchmark's do. Lives in store-memory's package to reach the
 * package-private paths. Where the kernel is not available its benchmark fails, saying why.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"})
public class ChecksummedCopyBenchmark {
    @Param({"65536", "1048576", "32062464"})
    public long size;

    private Arena arena;
    private MemorySegment from;
    private MemorySegment to;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        from = arena.allocate(size, 4096);
        to = arena.allocate(size, 4096);
        byte[] noise = new byte[4096];
        new Random(size).nextBytes(noise);
        for (long off = 0; off < size; off += noise.length) {
            MemorySegment.copy(MemorySegment.ofArray(noise), 0, from, off, Math.min(noise.length, size - off));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public MemorySegment copyOnly() {
        MemorySegment.copy(from, 0, to, 0, size);
        return to;
    }

    @Benchmark
    public long checksumOnly() {
        return Checksums.of(from);
    }

    @Benchmark
    public long javaChecksumOnly() {
        return Xxh3.hash(from);
    }

    @Benchmark
    public long jdkCrc32cOnly() {
        CRC32C crc = new CRC32C();
        crc.update(from.asByteBuffer());
        return crc.getValue();
    }

    @Benchmark
    public long nativeKernel() {
        if (!FusedCopy.available()) {
            throw new IllegalStateException("no native kernel here: " + FusedCopy.describe());
        }
        return FusedCopy.copy(from, to);
    }

    @Benchmark
    public long javaInSteps() {
        return MemoryCopy.checksumThenCopyInSteps(from, to);
    }

    @Benchmark
    public long checksumOnAnotherThread() {
        return MemoryCopy.copyWithChecksumAside(from, to);
    }
}
