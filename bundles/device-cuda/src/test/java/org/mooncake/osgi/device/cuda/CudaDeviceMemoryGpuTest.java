package org.mooncake.osgi.device.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemoryException;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/** On a real GPU: runs only where libcuda.so.1 loads (or fails under -Dmooncake.gpu.required=true). */
@Tag("gpu")
class CudaDeviceMemoryGpuTest {
    private static CudaDriver driver;
    private static CudaDeviceMemory memory;
    private final Arena arena = Arena.ofShared();

    /** Per test, so that each one reports its own skip (surefire shows no reason for a skipped class). */
    @BeforeEach
    void open() {
        if (memory == null) {
            driver = Gpu.driver();
            memory = CudaDeviceMemory.allDevices(driver);
            System.out.println("GPU tests on " + memory.describe());
        }
    }

    @AfterAll
    static void close() {
        if (memory != null) {
            memory.close();
        }
    }

    @AfterEach
    void closeArena() {
        arena.close();
        if (memory != null) {
            assertEquals(0, memory.liveBuffers(), "every test frees what it allocates");
        }
    }

    private MemorySegment random(long size, long seed) {
        MemorySegment s = arena.allocate(size, 4096);
        var rnd = new SplittableRandom(seed);
        long i = 0;
        for (; i + 8 <= size; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong());
        }
        for (; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        return s;
    }

    private static void assertSameBytes(MemorySegment expected, MemorySegment actual) {
        assertEquals(expected.byteSize(), actual.byteSize());
        long mismatch = expected.mismatch(actual);
        assertEquals(-1, mismatch, "first differing byte at " + mismatch);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {1, 4096, 1 << 20, (64 << 20) + 3})
    void hostToDeviceToHostAndDeviceToDeviceKeepEveryByte(long size) {
        MemorySegment in = random(size, size);
        MemorySegment out = arena.allocate(size, 4096);
        DeviceBuffer a = memory.allocate(0, size);
        DeviceBuffer b = memory.allocate(0, size);
        try {
            assertEquals(MemoryKind.CUDA_DEVICE, a.kind());
            assertEquals(size, a.byteSize());
            memory.copyFromHost(in, a);
            memory.copyToHost(a, out);
            assertSameBytes(in, out);
            out.fill((byte) 0);
            memory.copy(a, b);
            memory.copyToHost(b, out);
            assertSameBytes(in, out);
        } finally {
            memory.free(a);
            memory.free(b);
        }
    }

    @Test
    void heapHostMemoryIsStagedInChunks() {
        int size = 3 * CudaDeviceMemory.STAGING_CHUNK + 5;
        byte[] in = new byte[size];
        new SplittableRandom(7).nextBytes(in);
        byte[] out = new byte[size];
        DeviceBuffer d = memory.allocate(0, size);
        try {
            memory.copyFromHost(MemorySegment.ofArray(in), d);
            memory.copyToHost(d, MemorySegment.ofArray(out));
            assertArrayEquals(in, out);
        } finally {
            memory.free(d);
        }
    }

    @Test
    void slicesCopyAtTheirOffsets() {
        MemorySegment in = random(1000, 1);
        DeviceBuffer d = memory.allocate(0, 4096);
        try {
            memory.copyFromHost(in, d.slice(3000, 1000));
            MemorySegment out = arena.allocate(1000);
            memory.copyToHost(d.slice(3000, 1000), out);
            assertSameBytes(in, out);
            memory.copy(d.slice(3000, 500), d.slice(100, 500));
            MemorySegment half = arena.allocate(500);
            memory.copyToHost(d.slice(100, 500), half);
            assertSameBytes(in.asSlice(0, 500), half);
            memory.copyToHost(d.slice(4096, 0), arena.allocate(0)); // empty at the end: nothing to do
        } finally {
            memory.free(d);
        }
    }

    @Test
    void mistakesAreRefusedBeforeTheDriverSeesThePointer() {
        DeviceBuffer d = memory.allocate(0, 4096);
        MemorySegment host = arena.allocate(4096);
        try {
            assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(d, arena.allocate(4095)), "sizes");
            assertThrows(IllegalArgumentException.class, () -> memory.copyFromHost(arena.allocate(4097), d), "sizes");
            var past = new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, d.address() + 1, 4096);
            var e = assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(past, host));
            assertTrue(e.getMessage().contains("not within memory this service allocated"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(d, host.asReadOnly()), "read-only");
            assertThrows(IllegalArgumentException.class, () -> memory.copy(d.slice(0, 100), d.slice(50, 100)), "overlap");
            assertThrows(IllegalArgumentException.class, () -> memory.allocate(0, 0));
            assertThrows(IllegalArgumentException.class, () -> memory.allocate(memory.deviceCount(), 1));
            assertThrows(IllegalArgumentException.class, () -> memory.free(d.slice(0, 10)), "a slice");
            assertThrows(IllegalArgumentException.class,
                    () -> memory.copyToHost(new DeviceBuffer(MemoryKind.HOST, 0, host.address(), 4096), host), "host");
        } finally {
            memory.free(d);
        }
        assertThrows(IllegalArgumentException.class, () -> memory.free(d), "freed twice");
        assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(d, host), "freed");
    }

    @Test
    void copiesFromSeveralThreadsEachWithItsOwnBuffers() throws Exception {
        int threads = 8;
        int size = (1 << 20) + 17;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                done.add(pool.submit(() -> {
                    DeviceBuffer d = memory.allocate(0, size);
                    DeviceBuffer d2 = memory.allocate(0, size);
                    try (Arena own = Arena.ofConfined()) {
                        MemorySegment in = own.allocate(size);
                        MemorySegment out = own.allocate(size);
                        var rnd = new SplittableRandom(seed);
                        for (int round = 0; round < 20; round++) {
                            for (long i = 0; i + 8 <= size; i += 8) {
                                in.set(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong());
                            }
                            in.set(ValueLayout.JAVA_BYTE, size - 1, (byte) round);
                            memory.copyFromHost(in, d);
                            memory.copy(d, d2);
                            memory.copyToHost(d2, out);
                            assertEquals(-1, in.mismatch(out), "thread " + seed + " round " + round);
                        }
                    } finally {
                        memory.free(d);
                        memory.free(d2);
                    }
                    return null;
                }));
            }
            for (var f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void tooMuchMemoryIsTheDriversOutOfMemoryError() {
        var e = assertThrows(DeviceMemoryException.class, () -> memory.allocate(0, 1L << 50));
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName(), e.getMessage());
        assertTrue(e.getMessage().startsWith("cuMemAlloc_v2(1125899906842624 B) failed: CUDA_ERROR_OUT_OF_MEMORY (2): "),
                e.getMessage());
    }

    @Test
    void aCopyFromABadPointerNamesTheDriversError() {
        // behind the service's checks: the raw driver call, with a pointer freed a moment ago
        driver.setCurrent(driver.retainPrimaryContext(driver.device(0)));
        try {
            long gone = driver.memAlloc(4096);
            driver.memFree(gone);
            var e = assertThrows(DeviceMemoryException.class, () -> driver.memcpyDtoH(arena.allocate(4096), gone));
            assertTrue(e.errorName().startsWith("CUDA_ERROR_"), e.getMessage());
            assertTrue(e.getMessage().startsWith("cuMemcpyDtoH_v2(0x" + Long.toHexString(gone)), e.getMessage());
            System.out.println("bad pointer copy: " + e.getMessage());
        } finally {
            driver.releasePrimaryContext(driver.device(0));
        }
    }

    @Test
    void pinnedHostMemoryCopiesToo() {
        MemorySegment in = random(8 << 20, 3);
        MemorySegment out = arena.allocate(8 << 20, 4096);
        driver.hostRegister(in, 0);
        driver.hostRegister(out, 0);
        DeviceBuffer d = memory.allocate(0, in.byteSize());
        try {
            memory.copyFromHost(in, d);
            memory.copyToHost(d, out);
            assertSameBytes(in, out);
        } finally {
            memory.free(d);
            driver.hostUnregister(in);
            driver.hostUnregister(out);
        }
    }

    @Test
    void describesTheDriverAndDevices() {
        String d = memory.describe();
        assertTrue(d.startsWith("CUDA driver " + driver.versionString()), d);
        assertTrue(d.contains("device 0 = CUDA 0 "), d);
        assertTrue(driver.driverVersion() >= 11000, "driver " + driver.driverVersion());
        assertTrue(memory.deviceCount() >= 1);
    }

    @Test
    void closingFreesWhatIsLeftAndRefusesMore() {
        var own = CudaDeviceMemory.allDevices(driver);
        own.allocate(0, 1 << 20);
        own.allocate(0, 1 << 20);
        assertEquals(2, own.liveBuffers());
        own.close();
        assertEquals(0, own.liveBuffers());
        assertThrows(IllegalStateException.class, () -> own.allocate(0, 1));
    }
}
