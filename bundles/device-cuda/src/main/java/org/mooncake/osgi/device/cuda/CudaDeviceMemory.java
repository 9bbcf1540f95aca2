package org.mooncake.osgi.device.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

import org.mooncake.osgi.device.internal.Allocations;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.MemoryKind;

/**
 * {@link DeviceMemory} on CUDA devices through the driver API: each served device's primary
 * context is retained for the service's life and made current on the calling thread before each
 * operation. Buffers are checked against the live allocations before the driver sees a pointer,
 * so a stale or out-of-range buffer is an {@link IllegalArgumentException}, never a wild copy.
 * Host memory on the Java heap is staged through native chunks of {@value #STAGING_CHUNK} bytes
 * (the driver needs native addresses). Copies use the legacy default stream: copies from several
 * threads are correct, and serialize on the device.
 */
public final class CudaDeviceMemory implements DeviceMemory, AutoCloseable {
    /** Size of the native chunks heap host memory is staged through. */
    static final int STAGING_CHUNK = 4 << 20;

    private final CudaDriver driver;
    /** CUDA ordinal of each device index this service serves. */
    private final int[] ordinals;
    private final int[] handles;
    private final MemorySegment[] contexts;
    private final String[] names;
    private final long[] totalMemory;
    private final Allocations<Void> live;
    private volatile boolean closed;

    /** Serves every device the driver sees. */
    public static CudaDeviceMemory allDevices(CudaDriver driver) {
        int n = driver.deviceCount();
        int[] all = new int[n];
        Arrays.setAll(all, i -> i);
        return new CudaDeviceMemory(driver, all);
    }

    /**
     * Serves the devices with these CUDA ordinals: device index {@code i} of this service is
     * {@code ordinals[i]}.
     *
     * @throws IllegalArgumentException if there are none, or one is not a device the driver sees
     */
    public CudaDeviceMemory(CudaDriver driver, int[] ordinals) {
        this.driver = driver;
        this.ordinals = ordinals.clone();
        int count = driver.deviceCount();
        if (this.ordinals.length == 0) {
            throw new IllegalArgumentException("no CUDA device to serve");
        }
        for (int o : this.ordinals) {
            if (o < 0 || o >= count) {
                throw new IllegalArgumentException("CUDA device " + o + " is not one of the " + count
                        + " this driver sees (0.." + (count - 1) + ")");
            }
        }
        if (Arrays.stream(this.ordinals).distinct().count() != this.ordinals.length) {
            throw new IllegalArgumentException("CUDA devices " + Arrays.toString(this.ordinals) + " name one twice");
        }
        int n = this.ordinals.length;
        handles = new int[n];
        contexts = new MemorySegment[n];
        names = new String[n];
        totalMemory = new long[n];
        try {
            for (int i = 0; i < n; i++) {
                handles[i] = driver.device(this.ordinals[i]);
                names[i] = driver.deviceName(handles[i]);
                totalMemory[i] = driver.deviceTotalMemory(handles[i]);
                contexts[i] = driver.retainPrimaryContext(handles[i]);
            }
        } catch (RuntimeException e) {
            releaseContexts();
            throw e;
        }
        live = new Allocations<>(MemoryKind.CUDA_DEVICE, n);
    }

    /** The driver this service calls. */
    public CudaDriver driver() {
        return driver;
    }

    /** CUDA ordinal of each device index. */
    public int[] ordinals() {
        return ordinals.clone();
    }

    /** Makes the device's context current on this thread (before any driver call on it). */
    private void enter(int device) {
        if (closed) {
            throw new IllegalStateException("CUDA device memory is closed");
        }
        live.checkDevice(device);
        driver.setCurrent(contexts[device]);
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.CUDA_DEVICE;
    }

    @Override
    public int deviceCount() {
        return ordinals.length;
    }

    @Override
    public DeviceBuffer allocate(int device, long bytes) {
        Allocations.checkAllocationSize(bytes);
        enter(device);
        long pointer = driver.memAlloc(bytes);
        var buffer = new DeviceBuffer(MemoryKind.CUDA_DEVICE, device, pointer, bytes);
        live.add(buffer, null);
        return buffer;
    }

    @Override
    public void free(DeviceBuffer buffer) {
        if (closed) {
            throw new IllegalStateException("CUDA device memory is closed");
        }
        live.remove(buffer);
        enter(buffer.device());
        driver.memFree(buffer.address());
    }

    @Override
    public void copyToHost(DeviceBuffer source, MemorySegment hostTarget) {
        Allocations.checkSameSize(source.byteSize(), hostTarget.byteSize());
        Allocations.checkWritable(hostTarget);
        live.resolve(source);
        enter(source.device());
        if (source.byteSize() == 0) {
            return;
        }
        if (hostTarget.isNative()) {
            driver.memcpyDtoH(hostTarget, source.address());
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(Math.min(STAGING_CHUNK, source.byteSize()), 4096);
            for (long done = 0; done < source.byteSize(); ) {
                long n = Math.min(staging.byteSize(), source.byteSize() - done);
                MemorySegment chunk = staging.asSlice(0, n);
                driver.memcpyDtoH(chunk, source.address() + done);
                MemorySegment.copy(chunk, 0, hostTarget, done, n);
                done += n;
            }
        }
    }

    @Override
    public void copyFromHost(MemorySegment hostSource, DeviceBuffer target) {
        Allocations.checkSameSize(hostSource.byteSize(), target.byteSize());
        live.resolve(target);
        enter(target.device());
        if (target.byteSize() == 0) {
            return;
        }
        if (hostSource.isNative()) {
            driver.memcpyHtoD(target.address(), hostSource);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(Math.min(STAGING_CHUNK, target.byteSize()), 4096);
            for (long done = 0; done < target.byteSize(); ) {
                long n = Math.min(staging.byteSize(), target.byteSize() - done);
                MemorySegment chunk = staging.asSlice(0, n);
                MemorySegment.copy(hostSource, done, chunk, 0, n);
                driver.memcpyHtoD(target.address() + done, chunk);
                done += n;
            }
        }
    }

    @Override
    public void copy(DeviceBuffer source, DeviceBuffer target) {
        Allocations.checkSameSize(source.byteSize(), target.byteSize());
        Allocations.checkNoOverlap(source, target);
        live.resolve(source);
        live.resolve(target);
        enter(target.device());
        if (source.byteSize() == 0) {
            return;
        }
        if (source.device() == target.device()) {
            driver.memcpyDtoD(target.address(), source.address(), source.byteSize());
        } else {
            driver.memcpyPeer(target.address(), contexts[target.device()], source.address(),
                    contexts[source.device()], source.byteSize());
        }
    }

    /** Live allocations: how many and their bytes. */
    public int liveBuffers() {
        return live.count();
    }

    public long liveBytes() {
        return live.bytes();
    }

    @Override
    public String describe() {
        var s = new StringJoiner("; ", "CUDA driver " + driver.versionString() + " (" + driver.library() + "): ", "");
        for (int i = 0; i < ordinals.length; i++) {
            s.add("device " + i + " = CUDA " + ordinals[i] + " " + names[i] + ", " + (totalMemory[i] >> 20) + " MiB");
        }
        return s.toString();
    }

    /** Frees what is still allocated and releases the contexts; the service is unusable after. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        List<Allocations.Allocation<Void>> left = live.drain();
        for (var a : left) {
            try {
                driver.setCurrent(contexts[a.buffer().device()]);
                driver.memFree(a.buffer().address());
            } catch (RuntimeException e) {
                System.getLogger(CudaDeviceMemory.class.getName()).log(System.Logger.Level.WARNING,
                        "freeing " + a.buffer() + " at close: " + e.getMessage());
            }
        }
        closed = true;
        releaseContexts();
    }

    private void releaseContexts() {
        for (int i = 0; i < contexts.length; i++) {
            if (contexts[i] != null) {
                try {
                    driver.releasePrimaryContext(handles[i]);
                } catch (RuntimeException e) {
                    System.getLogger(CudaDeviceMemory.class.getName()).log(System.Logger.Level.WARNING,
                            "releasing the primary context of CUDA device " + ordinals[i] + ": " + e.getMessage());
                }
                contexts[i] = null;
            }
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
