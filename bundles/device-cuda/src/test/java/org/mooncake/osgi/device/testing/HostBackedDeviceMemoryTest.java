package org.mooncake.osgi.device.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.DeviceMemoryException;
import org.mooncake.osgi.store.spi.device.MemoryKind;

class HostBackedDeviceMemoryTest {
    private final HostBackedDeviceMemory memory = new HostBackedDeviceMemory(2, 1 << 20);
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        memory.close();
        assertEquals(0, memory.liveBuffers());
        assertEquals(0, memory.liveBytes());
        arena.close();
    }

    private MemorySegment bytes(int size, int seed) {
        MemorySegment s = arena.allocate(size);
        for (int i = 0; i < size; i++) {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    @Test
    void simulatesACudaDeviceBehindOpaqueAddresses() {
        DeviceMemory m = memory;
        assertEquals(MemoryKind.CUDA_DEVICE, m.kind());
        assertEquals(2, m.deviceCount());
        DeviceBuffer a = m.allocate(0, 100);
        DeviceBuffer b = m.allocate(0, 100);
        DeviceBuffer c = m.allocate(1, 100);
        assertTrue((a.address() & (1L << 62)) != 0, "non-canonical: " + a);
        assertTrue(Long.compareUnsigned(b.address(), a.address() + a.byteSize()) > 0, "never adjacent");
        assertEquals(0, a.address() % 256);
        assertEquals(1, c.device());
        assertNotEquals(a.address() >>> 48, c.address() >>> 48);
        assertTrue(m.describe().contains("simulated"));
        assertEquals(3, memory.liveBuffers());
        assertEquals(300, memory.liveBytes());
    }

    @Test
    void copiesRoundTripAndAreCounted() {
        MemorySegment in = bytes(1000, 1);
        DeviceBuffer a = memory.allocate(0, 1000);
        DeviceBuffer b = memory.allocate(1, 1000);
        memory.copyFromHost(in, a);
        memory.copy(a, b);
        MemorySegment out = arena.allocate(1000);
        memory.copyToHost(b, out);
        assertEquals(-1, in.mismatch(out));
        byte[] heap = new byte[400];
        memory.copyToHost(a.slice(600, 400), MemorySegment.ofArray(heap));
        assertEquals(-1, in.asSlice(600).mismatch(MemorySegment.ofArray(heap)));
        assertEquals(1, memory.copiesFromHost());
        assertEquals(1, memory.deviceCopies());
        assertEquals(2, memory.copiesToHost());
        assertEquals(3400, memory.bytesCopied());
    }

    @Test
    void refusesWhatTheRealDeviceRefuses() {
        DeviceBuffer a = memory.allocate(0, 1000);
        MemorySegment host = arena.allocate(1000);
        assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(a, arena.allocate(999)));
        assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(a, host.asReadOnly()));
        assertThrows(IllegalArgumentException.class,
                () -> memory.copyToHost(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, a.address() + 1, 1000), host));
        assertThrows(IllegalArgumentException.class, () -> memory.copy(a.slice(0, 10), a.slice(5, 10)));
        assertThrows(IllegalArgumentException.class, () -> memory.allocate(2, 1));
        assertThrows(IllegalArgumentException.class, () -> memory.allocate(0, 0));
        assertThrows(IllegalArgumentException.class, () -> memory.free(a.slice(0, 1)));
        memory.free(a);
        var e = assertThrows(IllegalArgumentException.class, () -> memory.free(a));
        assertTrue(e.getMessage().contains("freed already"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> memory.copyToHost(a, host));
        assertEquals(0, memory.copiesToHost());
    }

    @Test
    void runsOutOfMemoryLikeTheDriver() {
        memory.allocate(0, 1 << 19);
        var e = assertThrows(DeviceMemoryException.class, () -> memory.allocate(0, (1 << 19) + 1));
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        assertEquals(2, e.code());
        memory.allocate(1, 1 << 20); // the other device has its own
    }

    @Test
    void failsOnDemand() {
        DeviceBuffer a = memory.allocate(0, 10);
        memory.failNext(2);
        assertThrows(DeviceMemoryException.class, () -> memory.copyFromHost(arena.allocate(10), a));
        var e = assertThrows(DeviceMemoryException.class, () -> memory.allocate(0, 10));
        assertEquals("CUDA_ERROR_UNKNOWN", e.errorName());
        memory.copyFromHost(arena.allocate(10), a);
        assertEquals(1, memory.copiesFromHost());
        assertEquals(1, memory.liveBuffers());
    }

    @Test
    void isThreadSafe() throws Exception {
        var big = new HostBackedDeviceMemory();
        var pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                all.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        try (Arena own = Arena.ofConfined()) {
                            MemorySegment in = own.allocate(4096).fill((byte) (seed + i));
                            MemorySegment out = own.allocate(4096);
                            DeviceBuffer d = big.allocate(0, 4096);
                            big.copyFromHost(in, d);
                            big.copyToHost(d, out);
                            big.free(d);
                            assertEquals(-1, in.mismatch(out));
                        }
                    }
                    return null;
                }));
            }
            for (var f : all) {
                f.get();
            }
            assertEquals(0, big.liveBuffers());
            assertEquals(1600, big.copiesToHost());
            assertFalse(big.describe().contains(" B each"));
        } finally {
            pool.shutdown();
            big.close();
        }
    }
}
