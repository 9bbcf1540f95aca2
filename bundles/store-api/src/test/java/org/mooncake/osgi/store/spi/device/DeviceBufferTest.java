package org.mooncake.osgi.store.spi.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class DeviceBufferTest {
    private static final long ADDR = 0x7f00_0000_0000L;

    @Test
    void holdsAnOpaqueAddressAndNoSegment() {
        var b = new DeviceBuffer(MemoryKind.CUDA_DEVICE, 1, ADDR, 4096);
        assertEquals(MemoryKind.CUDA_DEVICE, b.kind());
        assertEquals(1, b.device());
        assertEquals(ADDR, b.address());
        assertEquals(4096, b.byteSize());
        assertEquals("CUDA_DEVICE[1]@0x7f0000000000+4096", b.toString());
        assertTrue(Arrays.stream(DeviceBuffer.class.getRecordComponents()).map(RecordComponent::getType)
                .noneMatch(t -> t.getName().startsWith("java.lang.foreign")), "no MemorySegment in a device buffer");
    }

    @Test
    void refusesNegativeValuesAndANullDevicePointer() {
        assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(MemoryKind.CUDA_DEVICE, -1, ADDR, 1));
        assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR, -1));
        var zero = assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, 0, 1));
        assertTrue(zero.getMessage().contains("address 0"), zero.getMessage());
        assertThrows(NullPointerException.class, () -> new DeviceBuffer(null, 0, ADDR, 1));
        // host memory may be the empty range at 0
        assertEquals(0, new DeviceBuffer(MemoryKind.HOST, 0, 0, 0).byteSize());
    }

    @Test
    void refusesARangeThatWrapsAroundTheAddressSpace() {
        assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, -16L, 17));
        // the end (address + byteSize) must itself be an address: 2^64 is not
        assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, -16L, 16));
        assertEquals(15, new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, -16L, 15).byteSize());
        assertEquals(Long.MAX_VALUE, new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, 1, Long.MAX_VALUE).byteSize());
    }

    @Test
    void slicesWithinBounds() {
        var b = new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR, 100);
        assertEquals(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR + 10, 20), b.slice(10, 20));
        assertEquals(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR + 100, 0), b.slice(100, 0));
        assertEquals(b, b.slice(0, 100));
        assertEquals(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR + 60, 40), b.slice(60));
        assertEquals(0, b.slice(100).byteSize());
    }

    @Test
    void refusesSlicesOutOfBounds() {
        var b = new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR, 100);
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(-1, 10));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(0, 101));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(91, 10));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(Long.MAX_VALUE, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(101));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(Long.MIN_VALUE));
    }

    @Test
    void containsAndOverlaps() {
        var b = new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR, 100);
        assertTrue(b.contains(b.slice(10, 90)));
        assertTrue(b.contains(b.slice(100, 0)));
        assertFalse(b.contains(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR + 10, 91)));
        assertFalse(b.contains(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 0, ADDR - 1, 2)));
        assertFalse(b.contains(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 1, ADDR, 1)), "another device");
        assertFalse(b.contains(new DeviceBuffer(MemoryKind.HOST, 0, ADDR, 1)), "another kind");
        assertTrue(b.slice(0, 50).overlaps(b.slice(49, 10)));
        assertFalse(b.slice(0, 50).overlaps(b.slice(50, 10)));
        assertFalse(b.slice(0, 50).overlaps(b.slice(10, 0)), "an empty range overlaps nothing");
        assertFalse(b.overlaps(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 1, ADDR, 100)));
    }

    @Test
    void onlyHostMemoryIsHost() {
        assertFalse(MemoryKind.HOST.isDevice());
        assertTrue(MemoryKind.CUDA_DEVICE.isDevice());
    }

    @Test
    void anExceptionNamesTheDriversError() {
        var e = new DeviceMemoryException("cuMemAlloc_v2(device 0, 1024 B)", 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
        assertEquals("cuMemAlloc_v2(device 0, 1024 B) failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", e.getMessage());
        assertEquals(2, e.code());
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
    }
}
