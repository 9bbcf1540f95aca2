package org.mooncake.osgi.store.spi.transport.internal;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Copy and CRC32C in one pass, through the native kernel in {@code src/main/c/mooncake_copy.c}
 * (AVX-512 with VPCLMULQDQ, called through FFM). The JDK checksums about as fast as it copies,
 * so a checksummed transfer in Java costs two passes; this costs one (on our Zen 4 VM a 64 KiB
 * copy with its CRC32C took 1.2 µs, against 0.6 µs to copy and 1.2 µs to checksum).
 *
 * <p>The kernel ships in this bundle where the build had gcc (linux x86-64); it is written to a
 * temporary file, opened, and the file removed. Where it is missing, the CPU lacks the
 * instructions, native access is denied, or {@code -Dmooncake.copy.native=false} is set, {@link
 * #available} is false and callers copy and checksum in Java; {@link #describe} says why.
 */
public final class FusedCopy {
    /** Set to {@code false} to copy and checksum in Java (an operator's way out, and A/B runs). */
    public static final String PROPERTY = "mooncake.copy.native";
    static final String RESOURCE = "/native/linux-x86_64/libmooncake-copy.so";
    /**
     * Bytes per native call: a critical call holds off the garbage collector (it may read heap
     * arrays in place), so a large copy goes in pieces of about 25 µs each.
     */
    static final long CALL_BYTES = 1L << 20;
    private static final System.Logger LOG = System.getLogger(FusedCopy.class.getName());
    private static final Kernel KERNEL = Kernel.load(System.getProperty(PROPERTY, "true"),
            System.getProperty("os.name", ""), System.getProperty("os.arch", ""));

    private FusedCopy() {
    }

    record Kernel(MethodHandle copy, String why) {
        static Kernel off(String why) {
            LOG.log(System.Logger.Level.INFO, "checksummed copies take two passes in Java: {0}", why);
            return new Kernel(null, why);
        }

        /** The kernel for this setting of {@link #PROPERTY}, os name and arch; {@code copy} null when off. */
        static Kernel load(String property, String osName, String arch) {
            if ("false".equalsIgnoreCase(property)) {
                return off("turned off by -D" + PROPERTY + "=false");
            }
            String os = osName.toLowerCase(Locale.ROOT);
            if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
                return off("no kernel for " + os + "/" + arch);
            }
            try (InputStream in = FusedCopy.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    return off("the kernel was not built (no gcc where this bundle was built)");
                }
                Path file = Files.createTempFile("mooncake-copy-", ".so");
                SymbolLookup library;
                try {
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                    library = SymbolLookup.libraryLookup(file, Arena.global());
                } finally {
                    Files.deleteIfExists(file); // the mapping stays; nothing is left behind after a crash
                }
                Linker linker = Linker.nativeLinker();
                MethodHandle kernel = linker.downcallHandle(library.find("mc_copy_kernel").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT));
                if ((int) kernel.invokeExact() == 0) {
                    return off("this CPU lacks AVX-512 with VPCLMULQDQ");
                }
                MethodHandle copy = linker.downcallHandle(library.find("mc_copy_crc32c").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                        Linker.Option.critical(true));
                LOG.log(System.Logger.Level.INFO, "checksummed copies take one pass (native AVX-512 kernel)");
                return new Kernel(copy, "native AVX-512 kernel");
            } catch (Throwable e) { // IllegalCallerException where native access is denied, IOException, ...
                return off(e.toString());
            }
        }
    }

    /** Whether {@link #copy} may be called. */
    public static boolean available() {
        return KERNEL.copy != null;
    }

    /** What copies checksummed transfers: the native kernel, or why not. */
    public static String describe() {
        return KERNEL.why;
    }

    /**
     * Copies {@code from} into {@code to} (same size, not overlapping; heap or native) and returns
     * the CRC32C of the bytes, continued from {@code crc} as {@link java.util.zip.CRC32C} would.
     * Each byte is read once: the checksum is of exactly what landed. Fails as {@link
     * MemorySegment#copy} does: a read-only target, a closed arena or another thread's memory.
     */
    public static int copy(MemorySegment from, MemorySegment to, int crc) {
        if (KERNEL.copy == null) {
            throw new IllegalStateException("no native copy kernel: " + KERNEL.why);
        }
        long len = from.byteSize();
        if (to.byteSize() != len) {
            throw new IndexOutOfBoundsException("copy of " + len + " bytes into " + to.byteSize());
        }
        if (to.isReadOnly()) {
            throw new UnsupportedOperationException("read-only target");
        }
        for (long off = 0; off < len; off += CALL_BYTES) {
            long n = Math.min(CALL_BYTES, len - off);
            crc = call(to.asSlice(off, n), from.asSlice(off, n), n, crc);
        }
        return crc;
    }

    private static int call(MemorySegment to, MemorySegment from, long n, int crc) {
        try {
            return (int) KERNEL.copy.invokeExact(to, from, n, crc);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
