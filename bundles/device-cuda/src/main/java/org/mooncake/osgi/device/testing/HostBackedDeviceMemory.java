package org.mooncake.osgi.device.testing;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.device.internal.Allocations;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.DeviceMemoryException;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * For tests: a simulated {@link MemoryKind#CUDA_DEVICE} device whose memory is host memory hidden
 * behind fake addresses. The addresses have bit 62 set (non-canonical on x86-64, above 48-bit
 * user space on aarch64), so code that wrongly dereferences one faults instead of reading
 * something; the bytes are reachable only through this class's copies, which check bounds as
 * {@code CudaDeviceMemory} does and count what they move. Allocations are 256-byte aligned and
 * never adjacent, so a range that strays past its buffer is refused. {@link #failNext} makes the
 * next operations fail as a driver would. Thread-safe.
 */
public final class HostBackedDeviceMemory implements DeviceMemory, AutoCloseable {
    private static final long BASE = 0x4D00_0000_0000_0000L;
    private static final long GAP = 4096;

    private record Hidden(Arena arena, MemorySegment memory) {
    }

    private final int devices;
    private final long capacity;
    private final Allocations<Hidden> live;
    private final AtomicLong[] next;
    private final AtomicLong[] used;
    private final AtomicLong toHost = new AtomicLong();
    private final AtomicLong fromHost = new AtomicLong();
    private final AtomicLong onDevice = new AtomicLong();
    private final AtomicLong bytesCopied = new AtomicLong();
    private final AtomicInteger failures = new AtomicInteger();

    /** One device with as much memory as the host gives. */
    public HostBackedDeviceMemory() {
        this(1, Long.MAX_VALUE);
    }

    /**
     * @param devices how many devices, 1 to 16
     * @param capacity bytes each device holds: an allocation past it fails like the driver's
     *        {@code CUDA_ERROR_OUT_OF_MEMORY}
     */
    public HostBackedDeviceMemory(int devices, long capacity) {
        if (devices < 1 || devices > 16) {
            throw new IllegalArgumentException("1 to 16 simulated devices, not " + devices);
        }
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity " + capacity + " is not positive");
        }
        this.devices = devices;
        this.capacity = capacity;
        this.live = new Allocations<>(MemoryKind.CUDA_DEVICE, devices);
        this.next = new AtomicLong[devices];
        this.used = new AtomicLong[devices];
        for (int i = 0; i < devices; i++) {
            next[i] = new AtomicLong(BASE + ((long) i << 48) + GAP);
            used[i] = new AtomicLong();
        }
    }

    /** The next {@code count} operations (allocations and copies) fail with CUDA_ERROR_UNKNOWN. */
    public void failNext(int count) {
        failures.set(count);
    }

    private void maybeFail(String operation) {
        if (failures.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
            throw new DeviceMemoryException(operation + " (simulated)", 999, "CUDA_ERROR_UNKNOWN",
                    "unknown error (injected by HostBackedDeviceMemory.failNext)");
        }
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.CUDA_DEVICE;
    }

    @Override
    public int deviceCount() {
        return devices;
    }

    @Override
    public DeviceBuffer allocate(int device, long bytes) {
        Allocations.checkAllocationSize(bytes);
        live.checkDevice(device);
        maybeFail("cuMemAlloc_v2(" + bytes + " B)");
        if (used[device].addAndGet(bytes) > capacity) {
            used[device].addAndGet(-bytes);
            throw new DeviceMemoryException("cuMemAlloc_v2(" + bytes + " B) (simulated)", 2,
                    "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
        }
        long span = ((bytes + 255) & ~255L) + GAP;
        long address = next[device].getAndAdd(span);
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(bytes, 256);
            var buffer = new DeviceBuffer(MemoryKind.CUDA_DEVICE, device, address, bytes);
            live.add(buffer, new Hidden(arena, memory));
            return buffer;
        } catch (RuntimeException | OutOfMemoryError e) {
            arena.close();
            used[device].addAndGet(-bytes);
            if (e instanceof OutOfMemoryError) {
                throw new DeviceMemoryException("cuMemAlloc_v2(" + bytes + " B) (simulated: the host has no room)", 2,
                        "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
            }
            throw e;
        }
    }

    @Override
    public void free(DeviceBuffer buffer) {
        var a = live.remove(buffer);
        used[buffer.device()].addAndGet(-buffer.byteSize());
        a.handle().arena().close();
    }

    /** The hidden memory behind {@code buffer}. */
    private MemorySegment memory(DeviceBuffer buffer) {
        var a = live.resolve(buffer);
        return a.handle().memory().asSlice(buffer.address() - a.buffer().address(), buffer.byteSize());
    }

    @Override
    public void copyToHost(DeviceBuffer source, MemorySegment hostTarget) {
        Allocations.checkSameSize(source.byteSize(), hostTarget.byteSize());
        Allocations.checkWritable(hostTarget);
        MemorySegment from = memory(source);
        maybeFail("cuMemcpyDtoH_v2");
        MemorySegment.copy(from, 0, hostTarget, 0, from.byteSize());
        toHost.incrementAndGet();
        bytesCopied.addAndGet(from.byteSize());
    }

    @Override
    public void copyFromHost(MemorySegment hostSource, DeviceBuffer target) {
        Allocations.checkSameSize(hostSource.byteSize(), target.byteSize());
        MemorySegment to = memory(target);
        maybeFail("cuMemcpyHtoD_v2");
        MemorySegment.copy(hostSource, 0, to, 0, to.byteSize());
        fromHost.incrementAndGet();
        bytesCopied.addAndGet(to.byteSize());
    }

    @Override
    public void copy(DeviceBuffer source, DeviceBuffer target) {
        Allocations.checkSameSize(source.byteSize(), target.byteSize());
        Allocations.checkNoOverlap(source, target);
        MemorySegment from = memory(source);
        MemorySegment to = memory(target);
        maybeFail("cuMemcpyDtoD_v2");
        MemorySegment.copy(from, 0, to, 0, from.byteSize());
        onDevice.incrementAndGet();
        bytesCopied.addAndGet(from.byteSize());
    }

    /** Copies device to host so far. */
    public long copiesToHost() {
        return toHost.get();
    }

    /** Copies host to device so far. */
    public long copiesFromHost() {
        return fromHost.get();
    }

    /** Copies device to device so far. */
    public long deviceCopies() {
        return onDevice.get();
    }

    /** Bytes moved by all copies so far. */
    public long bytesCopied() {
        return bytesCopied.get();
    }

    /** Buffers allocated and not freed. */
    public int liveBuffers() {
        return live.count();
    }

    /** Bytes allocated and not freed. */
    public long liveBytes() {
        return live.bytes();
    }

    @Override
    public String describe() {
        return "simulated device memory (host-backed, for tests): " + devices + " device" + (devices == 1 ? "" : "s")
                + (capacity == Long.MAX_VALUE ? "" : ", " + capacity + " B each");
    }

    /** Frees every live buffer. */
    @Override
    public void close() {
        for (var a : live.drain()) {
            used[a.buffer().device()].addAndGet(-a.buffer().byteSize());
            a.handle().arena().close();
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
