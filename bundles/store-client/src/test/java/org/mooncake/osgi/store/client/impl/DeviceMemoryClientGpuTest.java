package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.device.cuda.CudaDeviceMemory;
import org.mooncake.osgi.device.cuda.CudaDriver;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;

/**
 * The client's device path on a real GPU ({@link CudaDeviceMemory}): puts from and gets into GPU
 * memory over the local and tcp transports, and a segment in GPU memory. Runs only where
 * libcuda.so.1 loads and sees a GPU; skipped with the reason elsewhere, failed instead under
 * {@code -Dmooncake.gpu.required=true} (tools/gpu-check.sh runs it so).
 */
@Tag("gpu")
class DeviceMemoryClientGpuTest {
    private static final long STAGING = 1 << 20;
    private static CudaDeviceMemory gpu;

    private final Arena arena = Arena.ofShared();
    private final List<DeviceBuffer> allocated = new ArrayList<>();
    private ClientFixture f;
    private Transport transport;

    static Stream<Named<Supplier<Transport>>> transports() {
        return Stream.of(Named.of("local", LocalTransport::new), Named.of("tcp", DeviceMemoryClientGpuTest::tcp));
    }

    /** Here, not DeviceMemoryClientTest's: tools/gpu-check.sh packs only this class and ClientFixture. */
    private static Transport tcp() {
        try {
            return new org.mooncake.osgi.transport.tcp.TcpTransport(
                    org.mooncake.osgi.transport.tcp.TcpTransport.loopback(3, 1 << 20, 10_000));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Per test, so that each one reports its own skip. */
    @BeforeEach
    void open() {
        if (gpu == null) {
            CudaDriver.Load load = CudaDriver.load();
            if (load.driver().isEmpty()) {
                if (Boolean.getBoolean("mooncake.gpu.required")) {
                    fail("-Dmooncake.gpu.required=true but " + load.reason());
                }
                assumeTrue(false, "GPU test skipped: " + load.reason());
            }
            gpu = CudaDeviceMemory.allDevices(load.driver().get());
            System.out.println("client GPU tests on " + gpu.describe());
        }
    }

    @AfterAll
    static void closeGpu() {
        if (gpu != null) {
            gpu.close();
            gpu = null;
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            f.client.unmountAll();
            f.client.closeDeviceStaging();
            f.close();
        }
        if (transport instanceof AutoCloseable c) {
            c.close();
        }
        if (gpu != null) {
            synchronized (allocated) {
                allocated.forEach(gpu::free);
            }
        }
        arena.close();
        if (gpu != null) {
            assertEquals(0, gpu.liveBuffers(), "every test frees what it allocates");
        }
    }

    private void start(Transport t, long... segments) {
        transport = t;
        f = new ClientFixture(t, segments);
        f.client.bindDeviceMemory(gpu);
        f.client.deviceStaging(STAGING, 2);
    }

    private DeviceBuffer allocate(long size) {
        DeviceBuffer b = gpu.allocate(0, Math.max(size, 1));
        synchronized (allocated) {
            allocated.add(b);
        }
        return b.slice(0, size);
    }

    private MemorySegment random(long size, long seed) {
        MemorySegment s = arena.allocate(Math.max(size, 1)).asSlice(0, size);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        return s;
    }

    private DeviceBuffer onGpu(long size, long seed) {
        DeviceBuffer b = allocate(size);
        gpu.copyFromHost(random(size, seed), b);
        return b;
    }

    private MemorySegment read(DeviceBuffer b) {
        MemorySegment host = arena.allocate(Math.max(b.byteSize(), 1)).asSlice(0, b.byteSize());
        gpu.copyToHost(b, host);
        return host;
    }

    private static void assertSameBytes(MemorySegment expected, MemorySegment actual) {
        long at = expected.mismatch(actual);
        assertEquals(-1, at, "first differing byte at " + at);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void putFromGpuAndGetIntoGpu(Supplier<Transport> t) {
        start(t.get(), 32 << 20);
        long[] sizes = {1, 4096, 1 << 20, 3 * STAGING + 5};
        for (int i = 0; i < sizes.length; i++) {
            long size = sizes[i];
            f.client.putFromDevice("k" + i, onGpu(size, i), ReplicateConfig.DEFAULT);
            DeviceBuffer target = allocate(size);
            assertEquals(size, f.client.getIntoDevice("k" + i, target));
            assertSameBytes(random(size, i), read(target));
            assertSameBytes(random(size, i), MemorySegment.ofArray(f.client.get("k" + i)));
        }
    }

    @Test
    void concurrentPutsAndGetsThroughGpuMemory() throws Exception {
        start(new LocalTransport(), 64 << 20);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int th = 0; th < 4; th++) {
                int me = th;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 8; i++) {
                        long size = 1 + (me * 7919L + i * 104_729L) % (2 * STAGING + 3);
                        DeviceBuffer target = allocate(size);
                        f.client.putFromDevice("t" + me + "-" + i, onGpu(size, me * 100L + i), ReplicateConfig.DEFAULT);
                        assertEquals(size, f.client.getIntoDevice("t" + me + "-" + i, target));
                        assertSameBytes(random(size, me * 100L + i), read(target));
                    }
                    return null;
                }));
            }
            for (Future<?> d : done) {
                d.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSegmentInGpuMemoryServedByTheLocalTransport() {
        start(new LocalTransport(gpu));
        DeviceBuffer memory = allocate(8 << 20);
        String name = f.client.mountDeviceSegment(memory);
        assertEquals(MemoryKind.CUDA_DEVICE, f.master.segments().getFirst().memoryKind());
        byte[] v = new byte[300_000];
        new java.util.Random(3).nextBytes(v);
        f.client.put("in-gpu", v);
        ReplicaLocation r = f.master.queryKey(ObjectKey.of("in-gpu")).orElseThrow().replicas().getFirst();
        assertEquals(name, r.segmentName());
        assertSameBytes(MemorySegment.ofArray(v), read(memory.slice(r.offset(), v.length)));
        assertSameBytes(MemorySegment.ofArray(v), MemorySegment.ofArray(f.client.get("in-gpu")));
        DeviceBuffer target = allocate(v.length);
        assertEquals(v.length, f.client.getIntoDevice("in-gpu", target));
        assertSameBytes(MemorySegment.ofArray(v), read(target));
        assertTrue(f.master.stats().memoryKinds().getFirst().usedBytes() >= v.length);
        f.client.unmountSegment(name);
    }
}
