package org.mooncake.osgi.store.memory.internal;

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
 * Copy and checksum (XXH3-64, {@link Xxh3}) in one pass, through the native kernel in {@code
 * src/main/c/mooncake_copy.c} (AVX-512 or AVX2 on x86-64, NEON on aarch64, called through FFM). In Java a checksummed
 * transfer costs two passes; this costs one (on our Zen 4 VM a 64 KiB copy with its XXH3 took
 * 0.88 µs, against 0.66 µs to copy alone). The same kernel hashes without copying ({@link #hash}).
 *
 * <p>The kernel ships in this bundle for each of linux x86-64 and aarch64 that the build had a gcc
 * for (its own, or a cross gcc: {@code aarch64-linux-gnu-gcc} on x86-64); it is written to a
 * temporary file, opened, and the file removed. Where it is missing, the CPU lacks the
 * instructions, native access is denied, or {@code -Dmooncake.copy.native=false} is set, {@link
 * #available} is false and callers copy and checksum in Java; {@link #describe} says why.
 */
public final class FusedCopy {
    /**
     * {@code false} copies and checksums in Java (an operator's way out, and A/B runs); {@code avx2}
     * keeps the kernel to 256-bit lanes where the CPU has AVX-512 (for CPUs that slow down on it).
     */
    public static final String PROPERTY = "mooncake.copy.native";
    /** Where the kernel for an {@code os.arch} is in this bundle; null where none is built. */
    static String resource(String arch) {
        return switch (arch) {
            case "amd64", "x86_64" -> "/native/linux-x86_64/libmooncake-copy.so";
            case "aarch64", "arm64" -> "/native/linux-aarch64/libmooncake-copy.so";
            default -> null;
        };
    }

    /**
     * Bytes per native call: a critical call holds off the garbage collector (it may read heap
     * arrays in place), so a large copy goes in pieces of about 25 µs each. Whole XXH3 blocks.
     */
    static final long CALL_BYTES = 1L << 20;
    private static final FunctionDescriptor COPY_WHOLE = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor COPY_BLOCKS = FunctionDescriptor.ofVoid(ValueLayout.ADDRESS,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor COPY_LAST = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final System.Logger LOG = System.getLogger(FusedCopy.class.getName());
    private static final Kernel KERNEL = Kernel.load(System.getProperty(PROPERTY, "true"),
            System.getProperty("os.name", ""), System.getProperty("os.arch", ""));

    private FusedCopy() {
    }

    /** The kernel's entry points (see the C file), or none and why. */
    record Kernel(MethodHandle whole, MethodHandle start, MethodHandle blocks, MethodHandle last, String why) {
        static Kernel off(String why) {
            LOG.log(System.Logger.Level.INFO, "checksummed copies take two passes in Java: {0}", why);
            return new Kernel(null, null, null, null, why);
        }

        /** The kernel for this setting of {@link #PROPERTY}, os name and arch; the handles null when off. */
        static Kernel load(String property, String osName, String arch) {
            if ("false".equalsIgnoreCase(property)) {
                return off("turned off by -D" + PROPERTY + "=false");
            }
            String os = osName.toLowerCase(Locale.ROOT);
            String resource = resource(arch);
            if (!os.contains("linux") || resource == null) {
                return off("no kernel for " + os + "/" + arch);
            }
            try (InputStream in = FusedCopy.class.getResourceAsStream(resource)) {
                if (in == null) {
                    return off("the kernel for " + arch + " was not built (no gcc for it where this bundle was built)");
                }
                Path file = Files.createTempFile("mooncake-copy-", ".so");
                SymbolLookup library;
                try {
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                    library = SymbolLookup.libraryLookup(file, Arena.global());
                } catch (IllegalArgumentException e) { // dlopen refused it: built for another arch or libc
                    return off("the kernel for " + arch + " does not load here (" + e.getMessage() + ")");
                } finally {
                    Files.deleteIfExists(file); // the mapping stays; nothing is left behind after a crash
                }
                Linker linker = Linker.nativeLinker();
                MethodHandle kernel = linker.downcallHandle(library.find("mc_copy_kernel").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT));
                int width = (int) kernel.invokeExact();
                if ("avx2".equalsIgnoreCase(property)) {
                    MethodHandle limit = linker.downcallHandle(library.find("mc_copy_kernel_limit").orElseThrow(),
                            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                    width = (int) limit.invokeExact(1);
                }
                if (width == 0) {
                    return off("this CPU has neither AVX-512 nor AVX2");
                }
                String name = "native " + switch (width) {
                    case 2 -> "AVX-512";
                    case 1 -> "AVX2";
                    default -> "NEON";
                } + " kernel";
                LOG.log(System.Logger.Level.INFO, "checksummed copies take one pass ({0})", name);
                return new Kernel(
                        linker.downcallHandle(library.find("mc_copy_xxh3").orElseThrow(), COPY_WHOLE,
                                Linker.Option.critical(true)),
                        linker.downcallHandle(library.find("mc_xxh3_start").orElseThrow(),
                                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS)),
                        linker.downcallHandle(library.find("mc_copy_xxh3_blocks").orElseThrow(), COPY_BLOCKS,
                                Linker.Option.critical(true)),
                        linker.downcallHandle(library.find("mc_copy_xxh3_last").orElseThrow(), COPY_LAST,
                                Linker.Option.critical(true)),
                        name);
            } catch (Throwable e) { // IllegalCallerException where native access is denied, IOException, ...
                return off(e.toString());
            }
        }
    }

    /** Whether {@link #copy} and {@link #hash} may be called. */
    public static boolean available() {
        return KERNEL.last != null;
    }

    /** What copies checksummed transfers: the native kernel, or why not. */
    public static String describe() {
        return KERNEL.why;
    }

    /**
     * Copies {@code from} into {@code to} (same size, not overlapping; heap or native) and returns
     * the XXH3-64 of the bytes. Each byte is read once and hashed as it is stored (the final 64,
     * and inputs of up to 240 bytes, are hashed from the target after the copy): the checksum is
     * of exactly what landed. Fails as {@link MemorySegment#copy} does: a read-only
     * target, a closed arena or another thread's memory.
     */
    public static long copy(MemorySegment from, MemorySegment to) {
        return copy(KERNEL, from, to);
    }

    static long copy(Kernel kernel, MemorySegment from, MemorySegment to) {
        if (to.byteSize() != from.byteSize()) {
            throw new IndexOutOfBoundsException("copy of " + from.byteSize() + " bytes into " + to.byteSize());
        }
        if (to.isReadOnly()) {
            throw new UnsupportedOperationException("read-only target");
        }
        return run(kernel, from, to);
    }

    /** The XXH3-64 of {@code data}, as {@link Xxh3#hash} computes it. */
    public static long hash(MemorySegment data) {
        return hash(KERNEL, data);
    }

    static long hash(Kernel kernel, MemorySegment data) {
        return run(kernel, data, MemorySegment.NULL);
    }

    /**
     * In one call up to {@link #CALL_BYTES} and a block; beyond, in pieces of {@link #CALL_BYTES}
     * but the last, which is more than {@link Xxh3#BLOCK} bytes, so that the hash's final stripe
     * lies within it. {@code to} NULL: hash only.
     */
    private static long run(Kernel kernel, MemorySegment from, MemorySegment to) {
        if (kernel.last == null) {
            throw new IllegalStateException("no native copy kernel: " + kernel.why);
        }
        long len = from.byteSize();
        boolean copy = to != MemorySegment.NULL;
        try {
            if (len <= CALL_BYTES + Xxh3.BLOCK) { // the common case: one call, no state to allocate
                return (long) kernel.whole.invokeExact(to, from, len);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(64, 64);
                kernel.start.invokeExact(state);
                long off = 0;
                for (; len - off > CALL_BYTES + Xxh3.BLOCK; off += CALL_BYTES) {
                    MemorySegment into = copy ? to.asSlice(off, CALL_BYTES) : to;
                    kernel.blocks.invokeExact(state, into, from.asSlice(off, CALL_BYTES), CALL_BYTES);
                }
                MemorySegment into = copy ? to.asSlice(off) : to;
                return (long) kernel.last.invokeExact(state, into, from.asSlice(off), len - off, len);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
