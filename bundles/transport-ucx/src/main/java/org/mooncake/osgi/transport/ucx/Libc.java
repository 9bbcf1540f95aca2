package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.function.Consumer;

/** The few libc calls UCX needs around it: the environment it reads, poll on its event fd, FILE* for its printers. */
final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SETENV = handle("setenv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle GETENV = handle("getenv", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle POLL = handle("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle OPEN_MEMSTREAM = handle("open_memstream", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle FCLOSE = handle("fclose", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle FREE = handle("free", FunctionDescriptor.ofVoid(ADDRESS));
    private static final short POLLIN = 1;

    private Libc() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
    }

    /** The C environment's value (what native libraries read), or null. */
    static String getenv(String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = (MemorySegment) GETENV.invokeExact(a.allocateFrom(name));
            return v.equals(MemorySegment.NULL) ? null : v.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Sets a variable in the C environment; Java's own view of it ({@code System.getenv}) does not change. */
    static void setenv(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 1);
            if (rc != 0) {
                throw new IllegalStateException("setenv " + name + " failed");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A pollfd for {@code fd} waiting for input, in {@code arena}. */
    static MemorySegment pollIn(int fd, Arena arena) {
        MemorySegment pfd = arena.allocate(8, 4);
        pfd.set(JAVA_INT, 0, fd);
        pfd.set(JAVA_SHORT, 4, POLLIN);
        return pfd;
    }

    /** Waits up to {@code timeoutMs} for the pollfd's descriptor; an interrupted wait counts as a wake-up. */
    static void poll(MemorySegment pollfd, int timeoutMs) {
        try {
            int rc = (int) POLL.invokeExact(pollfd, 1L, timeoutMs);
            assert rc >= -1;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** What {@code printer} writes to a FILE* (UCX's *_print_info functions), as text. */
    static String capture(Consumer<MemorySegment> printer) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(ADDRESS);
            MemorySegment size = a.allocate(JAVA_LONG);
            MemorySegment file = (MemorySegment) OPEN_MEMSTREAM.invokeExact(buf, size);
            if (file.equals(MemorySegment.NULL)) {
                return "";
            }
            try {
                printer.accept(file);
            } finally {
                int rc = (int) FCLOSE.invokeExact(file); // flushes: buf and size are final now
                assert rc == 0;
            }
            MemorySegment text = buf.get(ADDRESS, 0);
            try {
                return text.reinterpret(size.get(JAVA_LONG, 0) + 1).getString(0);
            } finally {
                FREE.invokeExact(text);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
