package org.mooncake.osgi.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.Optional;

import org.mooncake.osgi.store.spi.device.DeviceMemoryException;

/**
 * The few CUDA driver API calls device memory needs, bound with FFM to the driver's own library,
 * {@code libcuda.so.1} (not the runtime, libcudart: the driver comes with the GPU's kernel module,
 * the runtime with a toolkit). Prototypes, from {@code cuda.h} (CUDA 12; the {@code _v2} names
 * are what {@code cuda.h} maps the plain ones to since CUDA 3.2 / 11, 64-bit sizes and pointers):
 *
 * <pre>
 * typedef int CUresult;  typedef int CUdevice;  typedef struct CUctx_st *CUcontext;
 * typedef unsigned long long CUdeviceptr;  // 64-bit: a Java long, unsigned
 * CUresult cuInit(unsigned int Flags);                                  // Flags must be 0
 * CUresult cuDriverGetVersion(int *driverVersion);                      // 12040 = 12.4
 * CUresult cuDeviceGetCount(int *count);
 * CUresult cuDeviceGet(CUdevice *device, int ordinal);
 * CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
 * CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
 * CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
 * CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);                  // plain name before CUDA 11
 * CUresult cuCtxSetCurrent(CUcontext ctx);                              // per calling thread
 * CUresult cuCtxSynchronize(void);
 * CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
 * CUresult cuMemFree_v2(CUdeviceptr dptr);
 * CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
 * CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
 * CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
 * CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
 *                       CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount);
 * CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags);
 * CUresult cuMemHostUnregister(void *p);
 * CUresult cuGetErrorName(CUresult error, const char **pStr);            // static strings
 * CUresult cuGetErrorString(CUresult error, const char **pStr);
 * </pre>
 *
 * A context is current per thread: every call that needs one is preceded by
 * {@link #setCurrent} on the calling thread (cheap, a thread-local store in the driver). The
 * {@code cuMemcpy*} calls are synchronous with respect to the host for device-to-host and
 * pinned transfers; a pageable host-to-device copy may return once the driver has staged the
 * bytes ({@link #synchronize} waits for the device). A method that fails throws a
 * {@link DeviceMemoryException} with the driver's error name and string. Host pointers passed
 * must be native segments (the callers stage heap memory).
 */
public final class CudaDriver {
    /** The driver library's soname. */
    public static final String LIBRARY = "libcuda.so.1";
    /** Suffix of every reason device memory is off. */
    static final String OFF = ": device memory is off";

    /**
     * What loading the driver gave: the driver, or why there is none (one line, for a log).
     *
     * @param driver the driver, initialized, with at least one device
     * @param reason a description of the driver when present, else why device memory is off
     */
    public record Load(Optional<CudaDriver> driver, String reason) {
        public Load {
            Objects.requireNonNull(driver);
            Objects.requireNonNull(reason);
        }

        public boolean present() {
            return driver.isPresent();
        }

        /** No driver, for {@code reason}. */
        public static Load absent(String reason) {
            return new Load(Optional.empty(), reason);
        }
    }

    private static volatile Load loaded;

    /** {@link #LIBRARY}, loaded and initialized once per JVM. */
    public static Load load() {
        Load l = loaded;
        if (l == null) {
            synchronized (CudaDriver.class) {
                l = loaded;
                if (l == null) {
                    loaded = l = load(LIBRARY);
                }
            }
        }
        return l;
    }

    /**
     * Loads {@code library} (a soname or a path), binds the calls and runs {@code cuInit}: absent,
     * with the reason, where the library does not load, lacks a call, fails to initialize or sees
     * no device. Never throws for a machine without a GPU.
     */
    public static Load load(String library) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return Load.absent("no CUDA driver here (" + library + " does not load: " + e.getMessage() + ")" + OFF);
        }
        CudaDriver driver;
        try {
            driver = new CudaDriver(library, lookup);
        } catch (MissingSymbol e) {
            return Load.absent("no CUDA driver here (" + library + " lacks " + e.getMessage()
                    + ": a driver older than CUDA 11?)" + OFF);
        }
        int rc = driver.call(driver.cuInit, 0);
        if (rc != 0) {
            return Load.absent("no CUDA device here (" + library + " loaded, but cuInit: " + driver.error(rc) + ")" + OFF);
        }
        int count;
        try {
            count = driver.deviceCount();
        } catch (DeviceMemoryException e) {
            return Load.absent("no CUDA device here (" + library + ": " + e.getMessage() + ")" + OFF);
        }
        if (count == 0) {
            return Load.absent("no CUDA device here (" + library + " loaded, cuDeviceGetCount is 0)" + OFF);
        }
        return new Load(Optional.of(driver), "CUDA driver " + driver.versionString() + " (" + library + "), "
                + count + " device" + (count == 1 ? "" : "s"));
    }

    private static final class MissingSymbol extends Exception {
        private static final long serialVersionUID = 1L;

        MissingSymbol(String name) {
            super(name, null, false, false);
        }
    }

    private final String library;
    private final MethodHandle cuInit;
    private final MethodHandle cuDriverGetVersion;
    private final MethodHandle cuDeviceGetCount;
    private final MethodHandle cuDeviceGet;
    private final MethodHandle cuDeviceGetName;
    private final MethodHandle cuDeviceTotalMem;
    private final MethodHandle cuDevicePrimaryCtxRetain;
    private final MethodHandle cuDevicePrimaryCtxRelease;
    private final MethodHandle cuCtxSetCurrent;
    private final MethodHandle cuCtxSynchronize;
    private final MethodHandle cuMemAlloc;
    private final MethodHandle cuMemFree;
    private final MethodHandle cuMemcpyHtoD;
    private final MethodHandle cuMemcpyDtoH;
    private final MethodHandle cuMemcpyDtoD;
    private final MethodHandle cuMemcpyPeer;
    private final MethodHandle cuMemHostRegister;
    private final MethodHandle cuMemHostUnregister;
    private final MethodHandle cuGetErrorName;
    private final MethodHandle cuGetErrorString;

    private CudaDriver(String library, SymbolLookup lookup) throws MissingSymbol {
        this.library = library;
        var i = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        var p = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        cuInit = bind(lookup, i, "cuInit");
        cuDriverGetVersion = bind(lookup, p, "cuDriverGetVersion");
        cuDeviceGetCount = bind(lookup, p, "cuDeviceGetCount");
        cuDeviceGet = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), "cuDeviceGet");
        cuDeviceGetName = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), "cuDeviceGetName");
        cuDeviceTotalMem = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), "cuDeviceTotalMem_v2");
        cuDevicePrimaryCtxRetain = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
                "cuDevicePrimaryCtxRetain");
        cuDevicePrimaryCtxRelease = bind(lookup, i, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
        cuCtxSetCurrent = bind(lookup, p, "cuCtxSetCurrent");
        cuCtxSynchronize = bind(lookup, FunctionDescriptor.of(JAVA_INT), "cuCtxSynchronize");
        cuMemAlloc = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), "cuMemAlloc_v2");
        cuMemFree = bind(lookup, FunctionDescriptor.of(JAVA_INT, JAVA_LONG), "cuMemFree_v2");
        cuMemcpyHtoD = bind(lookup, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG), "cuMemcpyHtoD_v2");
        cuMemcpyDtoH = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), "cuMemcpyDtoH_v2");
        cuMemcpyDtoD = bind(lookup, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), "cuMemcpyDtoD_v2");
        cuMemcpyPeer = bind(lookup, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG),
                "cuMemcpyPeer");
        cuMemHostRegister = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
                "cuMemHostRegister_v2");
        cuMemHostUnregister = bind(lookup, p, "cuMemHostUnregister");
        cuGetErrorName = bind(lookup, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), "cuGetErrorName");
        cuGetErrorString = bind(lookup, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), "cuGetErrorString");
    }

    private static MethodHandle bind(SymbolLookup lookup, FunctionDescriptor fd, String... names) throws MissingSymbol {
        for (String name : names) {
            Optional<MemorySegment> symbol = lookup.find(name);
            if (symbol.isPresent()) {
                return Linker.nativeLinker().downcallHandle(symbol.get(), fd);
            }
        }
        throw new MissingSymbol(names[0]);
    }

    /** The library this driver was loaded from. */
    public String library() {
        return library;
    }

    // ---- calls ----------------------------------------------------------------------------------

    private int call(MethodHandle h, int a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private int call(MethodHandle h, MemorySegment a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    private void check(int rc, String operation) {
        if (rc != 0) {
            throw new DeviceMemoryException(operation, rc, errorName(rc), errorString(rc));
        }
    }

    /** The driver's version, {@code 1000 * major + 10 * minor} (12040 for 12.4). */
    public int driverVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check(call(cuDriverGetVersion, v), "cuDriverGetVersion");
            return v.get(JAVA_INT, 0);
        }
    }

    /** The version as {@code major.minor}. */
    public String versionString() {
        int v = driverVersion();
        return (v / 1000) + "." + (v % 1000) / 10;
    }

    /** How many CUDA devices the driver sees (after {@code CUDA_VISIBLE_DEVICES}). */
    public int deviceCount() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check(call(cuDeviceGetCount, v), "cuDeviceGetCount");
            return v.get(JAVA_INT, 0);
        }
    }

    /** The {@code CUdevice} handle of the device with this ordinal. */
    public int device(int ordinal) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) cuDeviceGet.invokeExact(v, ordinal), "cuDeviceGet(" + ordinal + ")");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The device's name ("NVIDIA H200"). */
    public String deviceName(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocate(256);
            check((int) cuDeviceGetName.invokeExact(name, 256, device), "cuDeviceGetName(" + device + ")");
            return name.getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The device's memory in bytes. */
    public long deviceTotalMemory(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuDeviceTotalMem.invokeExact(v, device), "cuDeviceTotalMem_v2(" + device + ")");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Retains the device's primary context (the one the runtime API shares), an opaque pointer. */
    public MemorySegment retainPrimaryContext(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ADDRESS);
            check((int) cuDevicePrimaryCtxRetain.invokeExact(v, device), "cuDevicePrimaryCtxRetain(" + device + ")");
            return v.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Releases a retain of the device's primary context. */
    public void releasePrimaryContext(int device) {
        check(call(cuDevicePrimaryCtxRelease, device), "cuDevicePrimaryCtxRelease(" + device + ")");
    }

    /** Makes {@code context} current on the calling thread. */
    public void setCurrent(MemorySegment context) {
        check(call(cuCtxSetCurrent, context), "cuCtxSetCurrent");
    }

    /** Waits until the current context's device has finished all work. */
    public void synchronize() {
        try {
            check((int) cuCtxSynchronize.invokeExact(), "cuCtxSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code bytes} of device memory in the current context: its {@code CUdeviceptr}. */
    public long memAlloc(long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            check((int) cuMemAlloc.invokeExact(v, bytes), "cuMemAlloc_v2(" + bytes + " B)");
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memFree(long pointer) {
        try {
            check((int) cuMemFree.invokeExact(pointer), "cuMemFree_v2(0x" + Long.toHexString(pointer) + ")");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Copies {@code source} (native host memory) to the device at {@code target}. */
    public void memcpyHtoD(long target, MemorySegment source) {
        try {
            check((int) cuMemcpyHtoD.invokeExact(target, source, source.byteSize()),
                    "cuMemcpyHtoD_v2(0x" + Long.toHexString(target) + ", " + source.byteSize() + " B)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Copies {@code target.byteSize()} bytes from the device at {@code source} to {@code target}. */
    public void memcpyDtoH(MemorySegment target, long source) {
        try {
            check((int) cuMemcpyDtoH.invokeExact(target, source, target.byteSize()),
                    "cuMemcpyDtoH_v2(0x" + Long.toHexString(source) + ", " + target.byteSize() + " B)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Copies {@code bytes} on a device (or between devices of one unified address space). */
    public void memcpyDtoD(long target, long source, long bytes) {
        try {
            check((int) cuMemcpyDtoD.invokeExact(target, source, bytes), "cuMemcpyDtoD_v2(0x"
                    + Long.toHexString(source) + " -> 0x" + Long.toHexString(target) + ", " + bytes + " B)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Copies {@code bytes} between devices, each in its context. */
    public void memcpyPeer(long target, MemorySegment targetContext, long source, MemorySegment sourceContext,
            long bytes) {
        try {
            check((int) cuMemcpyPeer.invokeExact(target, targetContext, source, sourceContext, bytes),
                    "cuMemcpyPeer(0x" + Long.toHexString(source) + " -> 0x" + Long.toHexString(target) + ", " + bytes
                            + " B)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Page-locks (pins) native host memory so that copies to and from it run at DMA speed;
     * {@code flags} 0 is {@code CU_MEMHOSTREGISTER_DEFAULT}. Costs about as much as a copy of the
     * same size: pin staging buffers that live long, not each payload.
     */
    public void hostRegister(MemorySegment host, int flags) {
        try {
            check((int) cuMemHostRegister.invokeExact(host, host.byteSize(), flags),
                    "cuMemHostRegister_v2(" + host.byteSize() + " B)");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void hostUnregister(MemorySegment host) {
        check(call(cuMemHostUnregister, host), "cuMemHostUnregister");
    }

    /** {@code NAME (code): description}. */
    String error(int code) {
        return errorName(code) + " (" + code + "): " + errorString(code);
    }

    /** The driver's name for an error ({@code CUDA_ERROR_INVALID_VALUE}). */
    public String errorName(int code) {
        return errorText(cuGetErrorName, code, "CUDA_ERROR_" + code);
    }

    /** The driver's description of an error. */
    public String errorString(int code) {
        return errorText(cuGetErrorString, code, "unknown error " + code);
    }

    private static String errorText(MethodHandle h, int code, String otherwise) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) h.invokeExact(code, p);
            MemorySegment s = p.get(ADDRESS, 0);
            return rc != 0 || s.address() == 0 ? otherwise : s.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            return otherwise;
        }
    }

    @Override
    public String toString() {
        return "CUDA driver (" + library + ")";
    }
}
