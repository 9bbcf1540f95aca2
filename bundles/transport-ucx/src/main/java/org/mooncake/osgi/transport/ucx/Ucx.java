package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The system's UCX ({@code libucp.so.0}), bound with FFM: whether it loads, and the ucp calls this
 * transport makes, with their structs laid out by hand from the 1.13 headers. {@code ucs_status_t}
 * is a packed enum (one signed byte); the status-pointer macros ({@code UCS_PTR_IS_ERR} and
 * friends) are rewritten here.
 *
 * <p>Before the library loads, {@code UCX_HANDLE_ERRORS} is forced to {@code none}: UCX otherwise
 * installs SIGSEGV handlers that end the JVM at its first implicit NullPointerException (which
 * the JVM raises through that signal).
 */
public final class Ucx {
    static final String LIBRARY = "libucp.so.0";
    /** Where Debian and Ubuntu ship {@link #LIBRARY}. */
    static final String PACKAGE = "libucx0";
    private static final System.Logger LOG = System.getLogger(Ucx.class.getName());
    private static final Linker LINKER = Linker.nativeLinker();
    private static SymbolLookup ucp;
    private static SymbolLookup ucs;
    private static final String UNAVAILABLE = load();

    private Ucx() {
    }

    /** Whether libucp loaded in this process. */
    public static boolean available() {
        return UNAVAILABLE == null;
    }

    /** Why UCX cannot be used here (naming the package to install), or null when it can. */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    static void require() {
        if (UNAVAILABLE != null) {
            throw new IllegalStateException(UNAVAILABLE);
        }
    }

    private static String load() {
        String before = Libc.getenv("UCX_HANDLE_ERRORS");
        Libc.setenv("UCX_HANDLE_ERRORS", "none");
        if (before != null && !before.equals("none")) {
            LOG.log(Level.WARNING, "UCX_HANDLE_ERRORS={0} overridden with none: UCX''s signal handlers would end the "
                    + "JVM at its first NullPointerException", before);
        } else {
            LOG.log(Level.DEBUG, "UCX_HANDLE_ERRORS=none: UCX leaves SIGSEGV to the JVM");
        }
        if (Libc.getenv("UCX_POSIX_USE_PROC_LINK") == null) {
            // peers open our shared memory by name, not as /proc/<pid>/fd/<n>: once a segment is
            // freed its name is gone, while its descriptor number may already name another file
            Libc.setenv("UCX_POSIX_USE_PROC_LINK", "n");
        }
        try {
            ucp = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            ucs = SymbolLookup.libraryLookup("libucs.so.0", Arena.global());
            return null;
        } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
            return "UCX is not installed: " + LIBRARY + " cannot be loaded (" + e.getMessage()
                    + "); install the Debian/Ubuntu package " + PACKAGE + " (apt-get install " + PACKAGE + ")";
        }
    }

    // ---- status codes and status pointers ----

    static final byte OK = 0;
    static final byte INPROGRESS = 1;
    static final byte ERR_BUSY = -15;
    static final byte ERR_CANCELED = -16;
    static final byte ERR_UNREACHABLE = -6;
    /** UCS_ERR_LAST: status pointers are the 100 addresses below 2^64. */
    private static final long ERR_LAST = -100;

    /** UCS_PTR_IS_ERR. */
    static boolean isError(MemorySegment p) {
        return Long.compareUnsigned(p.address(), ERR_LAST) >= 0;
    }

    /** UCS_PTR_IS_PTR: a request that has not completed yet. */
    static boolean isRequest(MemorySegment p) {
        return Long.compareUnsigned(p.address() - 1, ERR_LAST - 1) < 0;
    }

    /** UCS_PTR_STATUS. */
    static byte status(MemorySegment p) {
        return isRequest(p) ? INPROGRESS : (byte) p.address();
    }

    /** UCX's name of a status, e.g. "Destination is unreachable". */
    static String describe(byte status) {
        try {
            MemorySegment s = (MemorySegment) Api.STATUS_STRING.invokeExact(status);
            return s.reinterpret(256).getString(0) + " (" + status + ")";
        } catch (Throwable t) {
            return "UCX status " + status;
        }
    }

    static void check(byte status, String what) {
        if (status != OK) {
            throw new UcxException(what + ": " + describe(status), status);
        }
    }

    // ---- constants from ucp.h / ucp_def.h (1.13) ----

    static final int API_MAJOR = 1;
    static final int API_MINOR = 13;
    static final long FEATURE_RMA = 1L << 1;
    static final long FEATURE_WAKEUP = 1L << 4;
    static final long PARAM_FIELD_FEATURES = 1L << 0;
    static final long WORKER_PARAM_FIELD_THREAD_MODE = 1L << 0;
    static final int THREAD_MODE_SINGLE = 0;
    /** Several threads, one at a time (the caller serializes: {@link Worker#lock}). */
    static final int THREAD_MODE_SERIALIZED = 1;
    static final long EP_PARAM_FIELD_REMOTE_ADDRESS = 1L << 0;
    static final long EP_PARAM_FIELD_ERR_HANDLING_MODE = 1L << 1;
    static final int ERR_HANDLING_MODE_PEER = 1;
    static final int EP_CLOSE_FLAG_FORCE = 1;
    static final int OP_ATTR_FIELD_FLAGS = 1 << 4;
    static final int OP_ATTR_FIELD_MEMH = 1 << 8;
    static final long MEM_MAP_PARAM_FIELD_ADDRESS = 1L << 0;
    static final long MEM_MAP_PARAM_FIELD_LENGTH = 1L << 1;
    static final long MEM_MAP_PARAM_FIELD_FLAGS = 1L << 2;
    static final int MEM_MAP_ALLOCATE = 1 << 1;
    static final long MEM_ATTR_FIELD_ADDRESS = 1L << 0;

    /** Sizes of the structs filled here (zeroed first, so unset fields are 0). */
    static final long PARAMS_SIZE = 128;
    static final long WORKER_PARAMS_SIZE = 256;
    static final long EP_PARAMS_SIZE = 104;
    static final long MEM_MAP_PARAMS_SIZE = 40;
    static final long MEM_ATTR_SIZE = 32;
    /** ucp_request_param_t: op_attr_mask u32 @0, flags u32 @4, ..., memh @64. */
    static final long REQUEST_PARAM_SIZE = 72;
    static final long REQUEST_PARAM_MEMH = 64;

    // ---- calls ----

    private static final class Api {
        static final MethodHandle CONFIG_READ = ucp("ucp_config_read", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle CONFIG_MODIFY = ucp("ucp_config_modify", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle CONFIG_RELEASE = ucp("ucp_config_release", null, ADDRESS);
        static final MethodHandle INIT = ucp("ucp_init_version", JAVA_BYTE, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle CLEANUP = ucp("ucp_cleanup", null, ADDRESS);
        static final MethodHandle CONTEXT_PRINT = ucp("ucp_context_print_info", null, ADDRESS, ADDRESS);
        static final MethodHandle WORKER_CREATE = ucp("ucp_worker_create", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle WORKER_DESTROY = ucp("ucp_worker_destroy", null, ADDRESS);
        static final MethodHandle WORKER_ADDRESS = ucp("ucp_worker_get_address", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle WORKER_RELEASE_ADDRESS = ucp("ucp_worker_release_address", null, ADDRESS, ADDRESS);
        static final MethodHandle PROGRESS = ucp("ucp_worker_progress", JAVA_INT, ADDRESS);
        static final MethodHandle GET_EFD = ucp("ucp_worker_get_efd", JAVA_BYTE, ADDRESS, ADDRESS);
        static final MethodHandle ARM = ucp("ucp_worker_arm", JAVA_BYTE, ADDRESS);
        static final MethodHandle SIGNAL = ucp("ucp_worker_signal", JAVA_BYTE, ADDRESS);
        static final MethodHandle FENCE = ucp("ucp_worker_fence", JAVA_BYTE, ADDRESS);
        static final MethodHandle EP_CREATE = ucp("ucp_ep_create", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle EP_CLOSE = ucp("ucp_ep_close_nbx", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle EP_PRINT = ucp("ucp_ep_print_info", null, ADDRESS, ADDRESS);
        static final MethodHandle EP_FLUSH = ucp("ucp_ep_flush_nbx", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle MEM_MAP = ucp("ucp_mem_map", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle MEM_UNMAP = ucp("ucp_mem_unmap", JAVA_BYTE, ADDRESS, ADDRESS);
        static final MethodHandle MEM_QUERY = ucp("ucp_mem_query", JAVA_BYTE, ADDRESS, ADDRESS);
        static final MethodHandle RKEY_PACK = ucp("ucp_rkey_pack", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle RKEY_BUFFER_RELEASE = ucp("ucp_rkey_buffer_release", null, ADDRESS);
        static final MethodHandle RKEY_UNPACK = ucp("ucp_ep_rkey_unpack", JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle RKEY_DESTROY = ucp("ucp_rkey_destroy", null, ADDRESS);
        static final MethodHandle RKEY_PTR = ucp("ucp_rkey_ptr", JAVA_BYTE, ADDRESS, JAVA_LONG, ADDRESS);
        static final MethodHandle PUT = ucp("ucp_put_nbx", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS);
        static final MethodHandle GET = ucp("ucp_get_nbx", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS);
        static final MethodHandle CHECK_STATUS = ucp("ucp_request_check_status", JAVA_BYTE, ADDRESS);
        static final MethodHandle CANCEL = ucp("ucp_request_cancel", null, ADDRESS, ADDRESS);
        static final MethodHandle FREE = ucp("ucp_request_free", null, ADDRESS);
        static final MethodHandle STATUS_STRING = LINKER.downcallHandle(ucs.find("ucs_status_string").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, JAVA_BYTE));

        private static MethodHandle ucp(String name, MemoryLayout result, MemoryLayout... args) {
            FunctionDescriptor fd = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
            return LINKER.downcallHandle(ucp.find(name).orElseThrow(() -> new IllegalStateException(
                    LIBRARY + " has no " + name + ": UCX " + API_MAJOR + "." + API_MINOR + " or later is needed")), fd);
        }
    }

    private static IllegalStateException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    static byte configRead(MemorySegment configOut) {
        try {
            return (byte) Api.CONFIG_READ.invokeExact(MemorySegment.NULL, MemorySegment.NULL, configOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte configModify(MemorySegment config, MemorySegment name, MemorySegment value) {
        try {
            return (byte) Api.CONFIG_MODIFY.invokeExact(config, name, value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void configRelease(MemorySegment config) {
        try {
            Api.CONFIG_RELEASE.invokeExact(config);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte init(MemorySegment params, MemorySegment config, MemorySegment contextOut) {
        try {
            return (byte) Api.INIT.invokeExact(API_MAJOR, API_MINOR, params, config, contextOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void cleanup(MemorySegment context) {
        try {
            Api.CLEANUP.invokeExact(context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static String contextInfo(MemorySegment context) {
        return Libc.capture(file -> {
            try {
                Api.CONTEXT_PRINT.invokeExact(context, file);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        });
    }

    static byte workerCreate(MemorySegment context, MemorySegment params, MemorySegment workerOut) {
        try {
            return (byte) Api.WORKER_CREATE.invokeExact(context, params, workerOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void workerDestroy(MemorySegment worker) {
        try {
            Api.WORKER_DESTROY.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The worker's address, copied to the heap (peers connect with it). */
    static byte[] workerAddress(MemorySegment worker) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment length = a.allocate(JAVA_LONG);
            check((byte) Api.WORKER_ADDRESS.invokeExact(worker, out, length), "ucp_worker_get_address");
            MemorySegment address = out.get(ADDRESS, 0);
            byte[] bytes = address.reinterpret(length.get(JAVA_LONG, 0)).toArray(JAVA_BYTE);
            Api.WORKER_RELEASE_ADDRESS.invokeExact(worker, address);
            return bytes;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int progress(MemorySegment worker) {
        try {
            return (int) Api.PROGRESS.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int eventFd(MemorySegment worker) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fd = a.allocate(JAVA_INT);
            check((byte) Api.GET_EFD.invokeExact(worker, fd), "ucp_worker_get_efd");
            return fd.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte arm(MemorySegment worker) {
        try {
            return (byte) Api.ARM.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Wakes a worker blocked on its event fd; safe from any thread (ucp.h). */
    static byte signal(MemorySegment worker) {
        try {
            return (byte) Api.SIGNAL.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte fence(MemorySegment worker) {
        try {
            return (byte) Api.FENCE.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte epCreate(MemorySegment worker, MemorySegment params, MemorySegment epOut) {
        try {
            return (byte) Api.EP_CREATE.invokeExact(worker, params, epOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment epClose(MemorySegment ep, MemorySegment param) {
        try {
            return (MemorySegment) Api.EP_CLOSE.invokeExact(ep, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static String epInfo(MemorySegment ep) {
        return Libc.capture(file -> {
            try {
                Api.EP_PRINT.invokeExact(ep, file);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        });
    }

    static MemorySegment epFlush(MemorySegment ep, MemorySegment param) {
        try {
            return (MemorySegment) Api.EP_FLUSH.invokeExact(ep, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte memMap(MemorySegment context, MemorySegment params, MemorySegment memhOut) {
        try {
            return (byte) Api.MEM_MAP.invokeExact(context, params, memhOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte memUnmap(MemorySegment context, MemorySegment memh) {
        try {
            return (byte) Api.MEM_UNMAP.invokeExact(context, memh);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte memQuery(MemorySegment memh, MemorySegment attr) {
        try {
            return (byte) Api.MEM_QUERY.invokeExact(memh, attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The packed remote key of {@code memh}, copied to the heap. */
    static byte[] rkeyPack(MemorySegment context, MemorySegment memh) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment size = a.allocate(JAVA_LONG);
            check((byte) Api.RKEY_PACK.invokeExact(context, memh, out, size), "ucp_rkey_pack");
            MemorySegment buffer = out.get(ADDRESS, 0);
            byte[] bytes = buffer.reinterpret(size.get(JAVA_LONG, 0)).toArray(JAVA_BYTE);
            Api.RKEY_BUFFER_RELEASE.invokeExact(buffer);
            return bytes;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte rkeyUnpack(MemorySegment ep, MemorySegment packed, MemorySegment rkeyOut) {
        try {
            return (byte) Api.RKEY_UNPACK.invokeExact(ep, packed, rkeyOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * ucp_rkey_ptr: where remote address {@code raddr} of {@code rkey} is mapped in this process
     * (shared memory the key attached), or 0 where it is not (a key of registered memory, tcp).
     */
    static long rkeyPtr(MemorySegment rkey, long raddr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            byte st = (byte) Api.RKEY_PTR.invokeExact(rkey, raddr, out);
            return st == OK ? out.get(ADDRESS, 0).address() : 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void rkeyDestroy(MemorySegment rkey) {
        try {
            Api.RKEY_DESTROY.invokeExact(rkey);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment put(MemorySegment ep, MemorySegment buffer, long count, long remote, MemorySegment rkey,
            MemorySegment param) {
        try {
            return (MemorySegment) Api.PUT.invokeExact(ep, buffer, count, remote, rkey, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static MemorySegment get(MemorySegment ep, MemorySegment buffer, long count, long remote, MemorySegment rkey,
            MemorySegment param) {
        try {
            return (MemorySegment) Api.GET.invokeExact(ep, buffer, count, remote, rkey, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static byte checkStatus(MemorySegment request) {
        try {
            return (byte) Api.CHECK_STATUS.invokeExact(request);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void cancel(MemorySegment worker, MemorySegment request) {
        try {
            Api.CANCEL.invokeExact(worker, request);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void free(MemorySegment request) {
        try {
            Api.FREE.invokeExact(request);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
